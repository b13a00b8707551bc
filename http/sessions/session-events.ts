import { sseComment, sseEvent } from '../../protocols/sse.js';
import type { ActorHost } from '../../runtime/actor-host.js';
import type { LogEvent } from '../../runtime/actor-log.js';
import type { Exchange } from '../exchange.js';
import { SseWriter } from '../sse-writer.js';

/** Event types after which a session's run has ended: the stream closes after sending one. */
const ENDING = new Set(['completed', 'cancelled', 'failed', 'expired', 'acknowledged']);

const HEARTBEAT_MS = 15_000;

// One encoding per event however many followers it has: 1,000 followers cost one JSON.stringify.
const encoded = new WeakMap<LogEvent, string>();

function encode(event: LogEvent): string {
  let text = encoded.get(event);
  if (text === undefined) {
    text = sseEvent(event.type, event.seq, { seq: event.seq, type: event.type, ts: event.ts, data: event.data });
    encoded.set(event, text);
  }
  return text;
}

/**
 * Streams a session's events over SSE from `after`: committed history, then live events, with
 * `id:` set to the seq so a client can resume with Last-Event-ID or `after`. Heartbeat comments
 * keep proxies from closing a quiet stream; the stream ends with the run.
 */
export function followSession(ex: Exchange, host: ActorHost, sessionId: string, after: number): void {
  const lastEventId = Number(ex.headers['last-event-id']);
  const from = Number.isInteger(lastEventId) && lastEventId > after ? lastEventId : after;
  const writer = new SseWriter(ex);
  writer.open();
  writer.push(sseComment(`session ${sessionId}`));
  let closed = false;
  const heartbeat = setInterval(() => writer.push(sseComment('heartbeat')), HEARTBEAT_MS);
  heartbeat.unref();
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    unsubscribe();
    writer.end();
  };
  const unsubscribe = host.follow(sessionId, from, {
    event: (event) => {
      if (closed) return;
      writer.push(encode(event));
      if (ENDING.has(event.type)) queueMicrotask(close);
    },
    end: () => queueMicrotask(close),
  });
  ex.signal.addEventListener('abort', close, { once: true });
}
