import type { SessionContext } from '../../actors/session-machine.js';
import { completionObject, runSvc, type CompletionHeader } from '../../protocols/chat-response.js';
import { microsToUsd } from '../../protocols/money.js';
import type { ActorRecord } from '../../runtime/actor-host.js';

/** A session's persisted snapshot, as far as the views read it. */
export interface SessionSnapshot {
  value: string | Record<string, unknown>;
  context: SessionContext;
}

/** The machine's top-level state name and, while running, the phase. */
export function stateOf(snapshot: SessionSnapshot): { state: string; phase: string | null } {
  if (typeof snapshot.value === 'string') return { state: snapshot.value, phase: null };
  const [state, inner] = Object.entries(snapshot.value)[0] ?? ['unknown', null];
  return { state, phase: typeof inner === 'string' ? inner : null };
}

const seconds = (ms: number | null | undefined) => (ms == null ? null : Math.floor(ms / 1000));

/** The session object of GET /v1/chat/sessions/{id} (spec: id and next_after; the rest is ours). */
export function sessionView(record: ActorRecord, nextAfter: number): Record<string, unknown> {
  const snapshot = record.snapshot as SessionSnapshot;
  const { context } = snapshot;
  const { state, phase } = stateOf(snapshot);
  return {
    id: record.id,
    object: 'chat.session',
    state,
    phase,
    model: context.model,
    completion_id: context.completionId,
    require_approval: context.requireApproval,
    quote: {
      cost_usd: { min: microsToUsd(context.quote.minMicros), max: microsToUsd(context.quote.holdMicros) },
      hold_usd: microsToUsd(context.quote.holdMicros),
      time_seconds: { min: context.quote.minSeconds, max: context.quote.maxSeconds },
      expires_at: seconds(context.deadlines.approval),
    },
    question: context.question ? { id: context.question.id, text: context.question.text, expires_at: seconds(context.deadlines.idle) } : null,
    usage: { prompt_tokens: context.usage.promptTokens, completion_tokens: context.usage.completionTokens, total_tokens: context.usage.promptTokens + context.usage.completionTokens },
    price_usd: context.priceMicros === null ? null : microsToUsd(context.priceMicros),
    cancel_reason: context.cancelReason,
    error: context.error,
    next_after: nextAfter,
    created_at: seconds(record.createdAt),
    updated_at: seconds(record.updatedAt),
  };
}

/** The final completion of a finished session, in the chat.completion shape (spec 2.2). */
export function sessionResult(record: ActorRecord): Record<string, unknown> {
  const { context } = record.snapshot as SessionSnapshot;
  const header: CompletionHeader = { id: context.completionId, created: Math.floor(record.createdAt / 1000), model: context.model, legacyFunctions: false };
  const answer = context.answer ?? { text: '', toolCalls: [], finishReason: 'stop' as const };
  const svc = runSvc(context.priceMicros ?? 0, { cached: false, depth: 'complex', status: 'completed', cancelReason: null });
  return { ...completionObject(header, [answer], context.usage, svc), session_id: record.id };
}
