import { sseComment } from '../protocols/sse.js';
import type { Exchange } from './exchange.js';
import { SseWriter } from './sse-writer.js';

const HEARTBEAT_MS = 15_000;

/**
 * Runs one open-ended SSE response: a hello comment, heartbeat comments so proxies keep a quiet
 * stream open, and one close path (the producer's `close`, or the client leaving) that stops the
 * producer and ends the response once. `start` subscribes, pushing encoded SSE text, and returns
 * its stop.
 */
export function streamSse(
  ex: Exchange,
  hello: string,
  start: (push: (text: string) => void, close: () => void) => () => void,
): void {
  const writer = new SseWriter(ex);
  writer.open();
  writer.push(sseComment(hello));
  let closed = false;
  const heartbeat = setInterval(() => writer.push(sseComment('heartbeat')), HEARTBEAT_MS);
  heartbeat.unref();
  let stop: () => void = () => {};
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    stop();
    writer.end();
  };
  stop = start(
    (text) => {
      if (!closed) writer.push(text);
    },
    () => queueMicrotask(close),
  );
  // A producer that closed while starting had no stop to call yet.
  if (closed) stop();
  ex.clientGone.addEventListener('abort', close);
}

/** Where a resumable stream starts: `after`, or the client's later `Last-Event-ID` (a seq) when it reconnects. */
export function resumeFrom(ex: Exchange, after: number): number {
  const lastEventId = Number(ex.headers['last-event-id']);
  return Number.isInteger(lastEventId) && lastEventId > after ? lastEventId : after;
}
