import { SSE_HEADERS } from '../protocols/sse.js';
import type { Exchange } from './exchange.js';

/** Characters queued before a flush happens without waiting for the end of the tick. */
const FLUSH_AT = 64 * 1024;

/**
 * Writers with text queued in this tick, flushed together by one `setImmediate` for the whole
 * process (thousands of open streams cost one immediate per tick, not one each).
 */
let queued: SseWriter[] = [];
let spare: SseWriter[] = [];
let scheduled = false;

function flushQueued(): void {
  scheduled = false;
  const writers = queued;
  queued = spare;
  for (const writer of writers) writer.flushQueued();
  writers.length = 0;
  spare = writers;
}

/**
 * Writes an SSE stream to an exchange: events queued in one tick go out in one write (one write
 * per event is ~30× slower on uWS), and when the client is slow `ready()` hands the producer a
 * promise to wait on, so a slow reader holds back the backend instead of growing memory.
 */
export class SseWriter {
  /** Text queued this tick (concatenated; written as one chunk). */
  private pending = '';
  private queued = false;
  private blocked: Promise<void> | null = null;
  private ended = false;
  private held = false;

  constructor(private readonly ex: Exchange) {}

  /** SSE responses open in this process (the metrics read it). */
  static openCount = 0;
  private counted = false;

  /**
   * Starts the response: status and headers leave with this tick's events, in the same socket
   * write (one cork per tick, not one for the head and one for the body).
   */
  open(headers: Record<string, string> = {}): void {
    this.ex.beginStream(200, { ...SSE_HEADERS, ...headers }, { lazy: true });
    // Nothing may be pushed this tick (a follower waiting for events): the head still goes out.
    this.schedule();
    if (this.counted || this.ex.clientGone.aborted) return;
    this.counted = true;
    SseWriter.openCount++;
    this.ex.clientGone.addEventListener('abort', () => this.uncount());
  }

  private uncount(): void {
    if (!this.counted) return;
    this.counted = false;
    SseWriter.openCount--;
  }

  /** Queues encoded SSE text; it is written at the end of this tick. */
  push(text: string): void {
    if (this.ended) return;
    this.pending += text;
    // A producer that never yields to the event loop must still meet backpressure.
    if (this.pending.length >= FLUSH_AT) this.flush();
    else this.schedule();
  }

  private schedule(): void {
    if (this.queued) return;
    this.queued = true;
    queued.push(this);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flushQueued);
    }
  }

  /** The end-of-tick flush: this writer is no longer in the queue. */
  flushQueued(): void {
    this.queued = false;
    if (!this.held) this.flush();
  }

  /**
   * Keeps what is pushed from now on queued until {@link end} (or {@link FLUSH_AT}): for a stream
   * whose last events are made a tick or more before its end (a response's `done` events, made in
   * the settle's transaction), so they leave with the end in one write instead of a write of their own.
   */
  holdUntilEnd(): void {
    this.held = true;
  }

  private flush(): void {
    if (this.ended) return;
    // An empty write still sends a head that waits for the body (the exchange skips it otherwise).
    const text = this.pending;
    this.pending = '';
    if (!this.ex.write(text) && !this.blocked) {
      this.blocked = this.ex.drained().then(() => {
        this.blocked = null;
      });
    }
  }

  /** Null when the client keeps up; otherwise a promise that resolves once it has drained. */
  ready(): Promise<void> | null {
    return this.blocked;
  }

  /** Writes what is queued and ends the response, in one socket write. */
  end(): void {
    if (this.ended) return;
    const text = this.pending;
    this.pending = '';
    this.ended = true;
    this.uncount();
    this.ex.end(text);
  }
}
