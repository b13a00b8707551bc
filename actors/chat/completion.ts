import type { ChatMessage } from '../../protocols/chat.js';
import type { ChoiceView } from '../../protocols/chat-response.js';
import { chatPriceMicros, type TokenUsage } from '../../protocols/pricing.js';
import { countPromptTokens, countTokens } from '../../protocols/tokens.js';
import type { Bill } from '../billing/charged-work.js';
import type { PassName } from './chat-plan.js';
import type { LiveInput } from './completion-passes.js';

// What a chat completion is, whichever way it runs: the rules the completion machine's actions and
// the direct one-pass run both call (live input, what a cut-short pass bills, the outcome, the price).

/** A tool call the answer made, assembled from its fragments. */
export interface ToolCallResult {
  id: string;
  name: string;
  arguments: string;
}

/** What one choice of one pass produced. */
export interface PassChoiceResult {
  text: string;
  toolCalls: ToolCallResult[];
  finishReason: 'stop' | 'length' | 'tool_calls';
  usage: TokenUsage;
  /** The stop sequence that ended the text, when the backend reported one. */
  stopSequence?: string;
}

/** Why a pass failed, as the backend classified it. */
export interface PassFailure {
  kind: 'upstream_error' | 'upstream_unavailable' | 'upstream_timeout';
  message: string;
  retryAfterMs: number | null;
}

/** How a completion ended. */
export type OutcomeStatus = 'completed' | 'cancelled' | 'failed';

/** How a completion ended, and (once settled) what the ledger charged for it. */
export interface CompletionOutcome {
  status: OutcomeStatus;
  choices: ChoiceView[];
  usage: TokenUsage;
  /** What the ledger charged, in micro-USD; 0 until the completion settled. */
  priceMicros: number;
  error: PassFailure | null;
  cancelReason: string | null;
}

/** Live input as a run takes it. */
export interface LiveInputEvent {
  content: unknown;
  questionId: string | null;
  source: string;
  modality: string;
  at: number;
}

/** A completion's state as status and live-input calls read it. */
export interface CompletionState {
  /** `running`, `completed`, `cancelled` or `failed`. */
  name: string;
  active: boolean;
  /** The pass in flight, null when none. */
  phase: PassName | null;
  liveInputs: readonly LiveInput[];
}

/** No tokens. */
export const NO_USAGE: TokenUsage = Object.freeze({ promptTokens: 0, completionTokens: 0 });

/** The sum of two usages. */
export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return { promptTokens: a.promptTokens + b.promptTokens, completionTokens: a.completionTokens + b.completionTokens };
}

/** The entry live input `event` becomes after `inputs`: the next seq, pending until a pass takes it. */
export function liveInputEntry(inputs: readonly LiveInput[], event: LiveInputEvent): LiveInput {
  return {
    seq: inputs.length + 1,
    content: event.content,
    questionId: event.questionId,
    source: event.source,
    modality: event.modality,
    receivedAt: event.at,
    usedIn: null,
  };
}

/** Whether a pass's text is the answer the client sees (the others are internal). */
export function isVisiblePass(pass: PassName | null): boolean {
  return pass === 'answer' || pass === 'draft';
}

/**
 * What a pass cut short by a cancel processed and leaves: the prompts it sent (one message list per
 * choice) and the tokens each choice had produced, and, when the pass was the visible answer, what
 * it had produced as the answer (so the client gets, and pays for, exactly that). Nothing when no
 * pass was in flight.
 */
export function cutShort(
  pass: PassName | null,
  prompts: readonly (readonly ChatMessage[])[],
  partial: readonly string[],
): { usage: TokenUsage; answers: PassChoiceResult[] | null } {
  if (pass === null) return { usage: NO_USAGE, answers: null };
  let promptTokens = 0;
  for (const messages of prompts) promptTokens += countPromptTokens(messages);
  let completionTokens = 0;
  for (const text of partial) completionTokens += countTokens(text);
  const answers = isVisiblePass(pass)
    ? partial.map((text) => ({ text, toolCalls: [], finishReason: 'stop' as const, usage: NO_USAGE }))
    : null;
  return { usage: { promptTokens, completionTokens }, answers };
}

/** The outcome of a run that ended `status` with these answers and usage, before it is priced. */
export function outcomeOf(
  status: OutcomeStatus,
  answers: readonly Omit<PassChoiceResult, 'usage'>[],
  usage: TokenUsage,
  error: PassFailure | null = null,
  cancelReason: string | null = null,
): CompletionOutcome {
  return {
    status,
    choices: answers.map((a) => ({
      text: a.text,
      toolCalls: a.toolCalls,
      finishReason: a.finishReason,
      ...(a.stopSequence !== undefined && { stopSequence: a.stopSequence }),
    })),
    usage,
    priceMicros: 0,
    error,
    cancelReason,
  };
}

/**
 * The price of a completion, and the only place it is computed: its processed tokens (completed,
 * cancelled or answered from the cache) at the chat tariff, with the ledger entry it settles as;
 * null for a failed run, which is charged nothing.
 */
export function completionBill(
  outcome: CompletionOutcome,
  how: { model: string; depth: string; cached?: boolean },
): Bill | null {
  if (outcome.status === 'failed') return null;
  const { usage } = outcome;
  return {
    charge: chatPriceMicros(usage),
    description: how.cached
      ? 'chat completion (cached)'
      : `chat completion (${how.depth}${outcome.status === 'cancelled' ? ', cancelled' : ''})`,
    model: how.model,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
  };
}
