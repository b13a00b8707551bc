import { z } from 'zod';
import type { ActorRecord } from '../../runtime/actor-host.js';
import type { RequestContext } from '../route.js';
import { buildWorkbook, WORKBOOK_SHEETS, type Workbook, type WorkbookCell } from './session-workbook.js';
import { stateOf, type SessionSnapshot } from './session-view.js';
import { CSV_CONTENT_TYPE, sheetToCsv } from './workbook-csv.js';
import { workbookToXlsx, XLSX_CONTENT_TYPE } from './workbook-xlsx.js';

const CsvQuery = z.object({ sheet: z.enum(WORKBOOK_SHEETS).default('Turns') });

/** The workbook of a session's current snapshot. */
export function sessionWorkbook(record: ActorRecord): Workbook {
  const snapshot = record.snapshot as SessionSnapshot;
  return buildWorkbook(snapshot.context, { id: record.id, createdAt: record.createdAt, state: stateOf(snapshot).state });
}

const jsonCell = (cell: WorkbookCell) => (cell.formula === undefined ? { value: cell.value } : { value: cell.value, formula: cell.formula });

/**
 * The body of GET /v1/chat/sessions/{id}/workbook: each sheet's columns and rows, each row its
 * sheet row number (formulas use A1 references) and cells `{value, formula?}` aligned with columns.
 */
export function workbookView(record: ActorRecord): Record<string, unknown> {
  const snapshot = record.snapshot as SessionSnapshot;
  return {
    object: 'chat.session.workbook',
    session_id: record.id,
    state: stateOf(snapshot).state,
    created_at: Math.floor(record.createdAt / 1000),
    updated_at: Math.floor(record.updatedAt / 1000),
    sheets: sessionWorkbook(record).sheets.map((sheet) => ({
      name: sheet.name,
      columns: sheet.columns,
      rows: sheet.rows.map((cells, index) => ({ row: index + 2, cells: cells.map(jsonCell) })),
    })),
  };
}

/** Answers GET …/workbook.csv?sheet=Turns|Budget|LiveInputs (422 at `['query','sheet']` for another name). */
export function sendWorkbookCsv(ctx: RequestContext, record: ActorRecord): undefined {
  const { sheet: name } = ctx.query(CsvQuery);
  const sheet = sessionWorkbook(record).sheets.find((candidate) => candidate.name === name);
  if (!sheet) throw new Error(`the workbook has no sheet ${name}`);
  ctx.ex.send(200, { 'content-type': CSV_CONTENT_TYPE, 'content-disposition': `attachment; filename="${record.id}-${sheet.name}.csv"` }, sheetToCsv(sheet));
  return undefined;
}

/** Answers GET …/workbook.xlsx with every sheet in one spreadsheet file. */
export async function sendWorkbookXlsx(ctx: RequestContext, record: ActorRecord): Promise<undefined> {
  const file = await workbookToXlsx(sessionWorkbook(record), { createdAt: record.createdAt, updatedAt: record.updatedAt });
  ctx.ex.send(200, { 'content-type': XLSX_CONTENT_TYPE, 'content-disposition': `attachment; filename="${record.id}.xlsx"` }, file);
  return undefined;
}
