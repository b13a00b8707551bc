import type { SessionQuote } from '../../actors/sessions/session-types.js';
import type { SessionRecord } from '../../actors/sessions/session-record.js';
import { completionObject, runSvc, type CompletionHeader } from '../../protocols/chat-response.js';
import type {
  SessionDeleted,
  SessionList,
  SessionObject,
  SessionQuoteWire,
  SessionResult,
} from '../../protocols/chat-session.js';
import { microsToUsd } from '../../protocols/money.js';

export { stateOf, type SessionSnapshot } from '../../actors/sessions/session-record.js';

/** Epoch ms as the wire's epoch seconds. */
const seconds = (ms: number): number => Math.floor(ms / 1000);
const secondsOrNull = (ms: number | null | undefined): number | null => (ms == null ? null : seconds(ms));

/** A quote as the wire shows it: USD and seconds. */
export function quoteWire(quote: SessionQuote): SessionQuoteWire {
  return {
    cost_usd: { min: microsToUsd(quote.minMicros), max: microsToUsd(quote.holdMicros) },
    hold_usd: microsToUsd(quote.holdMicros),
    time_seconds: { min: quote.minSeconds, max: quote.maxSeconds },
  };
}

/** The session object of GET /v1/chat/sessions/{id} (spec: id and next_after; the rest is ours). */
export function sessionView(session: SessionRecord): SessionObject {
  const { context } = session;
  return {
    id: session.id,
    object: 'chat.session',
    state: session.state,
    phase: session.phase,
    model: context.model,
    completion_id: context.completionId,
    require_approval: context.requireApproval,
    quote: { ...quoteWire(context.quote), expires_at: secondsOrNull(context.deadlines.approval) },
    question: context.question
      ? { id: context.question.id, text: context.question.text, expires_at: secondsOrNull(context.deadlines.idle) }
      : null,
    usage: {
      prompt_tokens: context.usage.promptTokens,
      completion_tokens: context.usage.completionTokens,
      total_tokens: context.usage.promptTokens + context.usage.completionTokens,
    },
    price_usd: context.priceMicros === null ? null : microsToUsd(context.priceMicros),
    cancel_reason: context.cancelReason,
    error: context.error,
    next_after: session.lastSeq,
    created_at: seconds(session.createdAt),
    updated_at: seconds(session.updatedAt),
  };
}

/** GET /v1/chat/sessions: a page of sessions, `has_more` when the page is full. */
export function sessionListView(sessions: readonly SessionRecord[], limit: number): SessionList {
  return { object: 'list', data: sessions.map(sessionView), has_more: sessions.length === limit };
}

/** DELETE /v1/chat/sessions/{id} */
export function sessionDeletedView(deleted: { id: string; artifactsDeleted: boolean }): SessionDeleted {
  return { id: deleted.id, object: 'chat.session', deleted: true, artifacts_deleted: deleted.artifactsDeleted };
}

/** The final completion of a finished session, in the chat.completion shape (spec 2.2). */
export function sessionResult(session: SessionRecord): SessionResult {
  const { context } = session;
  const header: CompletionHeader = {
    id: context.completionId,
    created: seconds(session.createdAt),
    model: context.model,
    legacyFunctions: false,
  };
  const answer = context.answer ?? { text: '', toolCalls: [], finishReason: 'stop' as const };
  const svc = runSvc(context.priceMicros ?? 0, {
    cached: false,
    depth: 'complex',
    status: 'completed',
    cancelReason: null,
  });
  return { ...completionObject(header, [answer], context.usage, svc), session_id: session.id };
}
