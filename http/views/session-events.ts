import { domainEventOf, isEndingEvent } from '../../actors/sessions/session-events.js';
import type { SessionEventsPage, SessionEventWire } from '../../protocols/chat-session.js';
import { microsToUsd } from '../../protocols/money.js';
import { sseEvent } from '../../protocols/sse.js';
import type { Follower } from '../../runtime/host/actor-host.js';
import type { LogEvent } from '../../runtime/host/actor-log.js';
import type { Exchange } from '../exchange.js';
import { resumeFrom, streamSse } from '../sse-stream.js';
import { quoteWire } from './session-view.js';

const secondsOrNull = (ms: number | null): number | null => (ms === null ? null : Math.floor(ms / 1000));

/**
 * Logs written before sessions emitted domain events hold the wire shape already; their data is
 * passed on as stored. Every wire payload with fields has a snake_case key, and no domain one does.
 */
const isWireShaped = (data: Record<string, unknown>): boolean => Object.keys(data).some((key) => key.includes('_'));

/** One logged session event as the API shows it: `{seq, type, ts, data}` with data in USD, seconds, snake_case. */
export function sessionEventWire(entry: LogEvent): SessionEventWire {
  const { seq, ts } = entry;
  if (isWireShaped(entry.data)) return { seq, type: entry.type, ts, data: entry.data } as SessionEventWire;
  const event = domainEventOf(entry);
  switch (event.type) {
    case 'created':
      return {
        seq,
        type: event.type,
        ts,
        data: { quote: quoteWire(event.quote), require_approval: event.requireApproval },
      };
    case 'awaiting_approval':
      return {
        seq,
        type: event.type,
        ts,
        data: { quote: quoteWire(event.quote), expires_at: secondsOrNull(event.expiresAt) },
      };
    case 'phase':
      return { seq, type: event.type, ts, data: { phase: event.phase } };
    case 'awaiting_user':
      return {
        seq,
        type: event.type,
        ts,
        data: { question: event.question, question_id: event.questionId, expires_at: secondsOrNull(event.expiresAt) },
      };
    case 'live_input':
      return { seq, type: event.type, ts, data: { seq: event.seq } };
    case 'answer':
      return { seq, type: event.type, ts, data: { text: event.text, finish_reason: event.finishReason } };
    case 'completed':
    case 'cancelled':
    case 'failed':
    case 'expired':
      return {
        seq,
        type: event.type,
        ts,
        data: {
          price_usd: microsToUsd(event.priceMicros),
          usage: { prompt_tokens: event.usage.promptTokens, completion_tokens: event.usage.completionTokens },
          reason: event.reason,
          error: event.error,
        },
      };
    case 'approved':
    case 'acknowledged':
      return { seq, type: event.type, ts, data: {} };
  }
}

/** GET …/events-page: the events, the cursor to continue from, and whether the page was full. */
export function sessionEventsPage(
  sessionId: string,
  events: readonly LogEvent[],
  after: number,
  limit: number,
): SessionEventsPage {
  return {
    object: 'chat.session.events',
    session_id: sessionId,
    events: events.map(sessionEventWire),
    next_after: events.at(-1)?.seq ?? Math.max(after, 0),
    has_more: events.length === limit,
  };
}

// One encoding per event however many followers it has: 1,000 followers cost one JSON.stringify.
const encoded = new WeakMap<LogEvent, string>();

function encode(entry: LogEvent): string {
  let text = encoded.get(entry);
  if (text === undefined) {
    text = sseEvent(entry.type, entry.seq, sessionEventWire(entry));
    encoded.set(entry, text);
  }
  return text;
}

/**
 * Streams a session's events over SSE from `after` (or a later Last-Event-ID): committed history,
 * then live events, with `id:` set to the seq so a client can resume. Heartbeat comments keep
 * proxies from closing a quiet stream; the stream ends with the run. `follow` subscribes to the
 * session's domain events (the feature's follow) and returns the unsubscribe.
 */
export function followSession(
  ex: Exchange,
  sessionId: string,
  after: number,
  follow: (from: number, follower: Follower) => () => void,
): void {
  streamSse(ex, `session ${sessionId}`, (push, close) =>
    follow(resumeFrom(ex, after), {
      event: (entry) => {
        push(encode(entry));
        if (isEndingEvent(entry.type)) close();
      },
      end: close,
    }),
  );
}
