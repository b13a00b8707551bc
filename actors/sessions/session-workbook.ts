import type { SessionContext } from './session-types.js';
import { WORKBOOK_SHEET_NAMES } from '../../protocols/chat-session.js';
import { microsToUsd } from '../../protocols/money.js';
import {
  chatPriceMicros,
  INPUT_PER_1M_USD,
  OUTPUT_PER_1M_USD,
  PRICING_VERSION,
  type TokenUsage,
} from '../../protocols/pricing.js';

/** A resolved cell value: text, a number, or empty. */
export type CellValue = string | number | null;

/** One cell: its resolved value and, when computed, the spreadsheet formula (with its leading `=`). */
export interface WorkbookCell {
  value: CellValue;
  formula?: string;
  /** A display hint for spreadsheets: an amount in USD, shown to the micro-dollar. */
  format?: 'usd';
}

/** The sheets every workbook has, in order; `Turns` is the default of the CSV export. */
export const WORKBOOK_SHEETS = WORKBOOK_SHEET_NAMES;

/** The name of one of the workbook's sheets. */
export type WorkbookSheetName = (typeof WORKBOOK_SHEETS)[number];

/** One sheet: sheet row 1 is `columns`, data row `i` is sheet row `i + 2`, cells aligned with `columns`. */
export interface WorkbookSheet {
  name: WorkbookSheetName;
  columns: string[];
  rows: WorkbookCell[][];
}

/** A session's structured working memory, the same for the JSON, CSV and XLSX exports. */
export interface Workbook {
  sheets: WorkbookSheet[];
}

/** What the workbook needs from the session's record besides its context. */
export interface WorkbookMeta {
  id: string;
  createdAt: number;
  state: string;
}

/** Excel's limit on the characters of one cell; longer text is cut so every format shows the same. */
export const MAX_CELL_TEXT = 32_767;

const TURN_COLUMNS = ['n', 'phase', 'at', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'cost_usd', 'summary'];
const LIVE_INPUT_COLUMNS = ['seq', 'received_at', 'source', 'modality', 'question_id', 'used_in', 'content'];

const BUDGET_ITEMS = [
  'session_id',
  'model',
  'state',
  'created_at',
  'pricing_version',
  'input_per_1m_usd',
  'output_per_1m_usd',
  'quote_min_usd',
  'quote_hold_usd',
  'prompt_tokens',
  'completion_tokens',
  'token_cost_usd',
  'charge_usd',
  'hold_remaining_usd',
  'final_price_usd',
] as const;
type BudgetItem = (typeof BUDGET_ITEMS)[number];

const cell = (value: CellValue): WorkbookCell => ({ value });
const usd = (micros: number, formula?: string): WorkbookCell =>
  formula ? { value: microsToUsd(micros), formula, format: 'usd' } : { value: microsToUsd(micros), format: 'usd' };
const text = (value: string): WorkbookCell =>
  cell(value.length > MAX_CELL_TEXT ? `${value.slice(0, MAX_CELL_TEXT - 1)}…` : value);
const iso = (ms: number): string => new Date(ms).toISOString();

/** One line of the Turns sheet before it becomes cells. */
interface TurnLine extends TokenUsage {
  phase: string;
  at: number;
  summary: string;
}

/**
 * The run's steps, led by a `preprocess` line for tokens the steps did not process themselves
 * (content parts resolved at creation or approval), so the sheet's totals are the session's usage.
 */
function turnLines(context: SessionContext): TurnLine[] {
  const lines: TurnLine[] = context.turns.map((turn) => ({ ...turn }));
  const promptTokens = context.usage.promptTokens - lines.reduce((sum, line) => sum + line.promptTokens, 0);
  const completionTokens = context.usage.completionTokens - lines.reduce((sum, line) => sum + line.completionTokens, 0);
  if (promptTokens === 0 && completionTokens === 0) return lines;
  return [
    {
      phase: 'preprocess',
      at: context.at,
      promptTokens,
      completionTokens,
      summary: 'tokens added by resolving content parts (files, images, audio)',
    },
    ...lines,
  ];
}

function turnsSheet(context: SessionContext): WorkbookSheet {
  const lines = turnLines(context);
  const rows = lines.map((line, index): WorkbookCell[] => {
    const r = index + 2;
    return [
      cell(index + 1),
      cell(line.phase),
      cell(iso(line.at)),
      cell(line.promptTokens),
      cell(line.completionTokens),
      { value: line.promptTokens + line.completionTokens, formula: `=D${r}+E${r}` },
      usd(chatPriceMicros(line), `=D${r}*${INPUT_PER_1M_USD}/1000000+E${r}*${OUTPUT_PER_1M_USD}/1000000`),
      text(line.summary),
    ];
  });
  const last = lines.length + 1;
  const sum = (column: string) => (lines.length > 0 ? `=SUM(${column}2:${column}${last})` : undefined);
  const withSum = (value: number, column: string): WorkbookCell => {
    const formula = sum(column);
    return formula ? { value, formula } : cell(value);
  };
  const { promptTokens, completionTokens } = context.usage;
  const totals: WorkbookCell[] = [
    cell(null),
    cell('total'),
    cell(null),
    withSum(promptTokens, 'D'),
    withSum(completionTokens, 'E'),
    withSum(promptTokens + completionTokens, 'F'),
    usd(chatPriceMicros(context.usage), sum('G')),
    cell(null),
  ];
  return { name: 'Turns', columns: TURN_COLUMNS, rows: [...rows, totals] };
}

/** The A1 reference of a Budget item's value. */
const ref = (item: BudgetItem): string => `B${BUDGET_ITEMS.indexOf(item) + 2}`;

function budgetSheet(context: SessionContext, meta: WorkbookMeta): WorkbookSheet {
  const { quote, usage } = context;
  const costMicros = chatPriceMicros(usage);
  // The ledger charges the processed tokens capped at the hold; a failed run is not charged.
  const failed = context.outcome === 'failed';
  const chargeMicros = failed ? 0 : Math.min(costMicros, quote.holdMicros);
  const lines: Record<BudgetItem, [WorkbookCell, string]> = {
    session_id: [cell(meta.id), 'id'],
    model: [cell(context.model), 'model'],
    state: [cell(meta.state), 'state'],
    created_at: [cell(iso(meta.createdAt)), 'ISO 8601'],
    pricing_version: [cell(PRICING_VERSION), 'tariff'],
    input_per_1m_usd: [cell(INPUT_PER_1M_USD), 'USD per 1M prompt tokens'],
    output_per_1m_usd: [cell(OUTPUT_PER_1M_USD), 'USD per 1M completion tokens'],
    quote_min_usd: [usd(quote.minMicros), 'USD'],
    quote_hold_usd: [usd(quote.holdMicros), 'USD (worst case held)'],
    prompt_tokens: [cell(usage.promptTokens), 'processed tokens'],
    completion_tokens: [cell(usage.completionTokens), 'processed tokens'],
    token_cost_usd: [
      usd(
        costMicros,
        `=${ref('prompt_tokens')}*${ref('input_per_1m_usd')}/1000000+${ref('completion_tokens')}*${ref('output_per_1m_usd')}/1000000`,
      ),
      'USD (tokens × rates)',
    ],
    charge_usd: failed
      ? [usd(0), 'USD (failed runs are not charged)']
      : [
          usd(chargeMicros, `=MIN(${ref('token_cost_usd')},${ref('quote_hold_usd')})`),
          'USD (token cost capped at the hold)',
        ],
    hold_remaining_usd: [
      usd(quote.holdMicros - chargeMicros, `=${ref('quote_hold_usd')}-${ref('charge_usd')}`),
      'USD (released at settlement)',
    ],
    final_price_usd: [context.priceMicros === null ? cell(null) : usd(context.priceMicros), 'USD (set when settled)'],
  };
  const rows = BUDGET_ITEMS.map((item): WorkbookCell[] => [cell(item), lines[item][0], cell(lines[item][1])]);
  return { name: 'Budget', columns: ['item', 'value', 'unit'], rows };
}

function liveInputsSheet(context: SessionContext): WorkbookSheet {
  const rows = context.liveInputs.map((input): WorkbookCell[] => [
    cell(input.seq),
    cell(iso(input.receivedAt)),
    text(input.source),
    text(input.modality),
    cell(input.questionId),
    cell(input.usedIn),
    text(typeof input.content === 'string' ? input.content : JSON.stringify(input.content)),
  ]);
  return { name: 'LiveInputs', columns: LIVE_INPUT_COLUMNS, rows };
}

/**
 * Builds a session's workbook: `Turns` (one row per step plus totals), `Budget` (quote, tokens,
 * charge and the hold left) and `LiveInputs`. Formulas carry their resolved values; money is USD.
 */
export function buildWorkbook(context: SessionContext, meta: WorkbookMeta): Workbook {
  return { sheets: [turnsSheet(context), budgetSheet(context, meta), liveInputsSheet(context)] };
}
