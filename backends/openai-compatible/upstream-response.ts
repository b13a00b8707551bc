import type { Dispatcher } from 'undici';
import type { UpstreamHeaders } from './upstream-failures.js';

/** Received-but-unread body bytes above which the upstream socket is paused, and below which it resumes. */
const HIGH_WATER = 64 * 1024;
const LOW_WATER = 16 * 1024;

/** A reader waiting for the head or the next chunk. */
interface Waiter {
  resolve: (chunk: Buffer | null) => void;
  reject: (error: Error) => void;
}

/**
 * One upstream request on undici's `dispatch` API: the handler undici calls, the response head as
 * a promise and the body chunk by chunk. Against `pool.request` this saves, per request, the body
 * stream and its async iterator, the AbortSignal and its listeners, and the request wrapper:
 * undici calls these methods directly. A body not read fast enough pauses the socket (high/low
 * water), so a slow client holds the upstream back instead of a growing buffer.
 */
export class UpstreamResponse implements Dispatcher.DispatchHandler {
  statusCode = 0;
  headers: UpstreamHeaders = {};
  /** The whole body has been received. */
  ended = false;
  #controller: Dispatcher.DispatchController | null = null;
  /** Why it was aborted before undici handed over its controller (applied when it does). */
  #abortReason: Error | null = null;
  #error: Error | null = null;
  #chunks: Buffer[] = [];
  #queued = 0;
  #paused = false;
  #waiter: Waiter | null = null;
  /** Set by {@link drain}: later bytes are dropped, and the connection is cut when the grace runs out. */
  #graceTimer: NodeJS.Timeout | undefined;
  #discarding = false;

  /** Sends the request through `dispatcher`; read the answer with {@link head} and {@link next}. */
  send(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions): this {
    dispatcher.dispatch(options, this);
    return this;
  }

  /** Resolves once the status and headers are in; rejects with the request's failure. */
  head(): Promise<unknown> {
    if (this.statusCode !== 0) return Promise.resolve(null);
    if (this.#error) return Promise.reject(this.#error);
    return this.#wait();
  }

  /** The next body chunk, or null at the end of the body; rejects with the failure that cut it. */
  next(): Promise<Buffer | null> {
    const chunk = this.#chunks.shift();
    if (chunk) {
      this.#queued -= chunk.byteLength;
      if (this.#paused && this.#queued <= LOW_WATER) {
        this.#paused = false;
        this.#controller?.resume();
      }
      return Promise.resolve(chunk);
    }
    if (this.#error) return Promise.reject(this.#error);
    if (this.ended) return Promise.resolve(null);
    return this.#wait();
  }

  /** Cuts the request (whatever phase it is in); a reader waiting gets `reason`. */
  abort(reason: Error): void {
    if (this.ended || this.#error) return;
    this.#fail(reason);
    if (this.#controller) this.#controller.abort(reason);
    else this.#abortReason = reason;
  }

  /**
   * Lets the rest of the body arrive unread, so the keep-alive connection goes back to the pool;
   * cuts it if it has not ended within `graceMs`.
   */
  drain(graceMs: number): void {
    this.#discarding = true;
    this.#chunks = [];
    this.#queued = 0;
    if (this.#paused) {
      this.#paused = false;
      this.#controller?.resume();
    }
    if (!this.ended && !this.#error) this.#graceTimer = setTimeout(this.#onGraceOver, graceMs);
  }

  readonly #onGraceOver = (): void => this.abort(new Error('upstream body did not end after the answer'));

  #wait(): Promise<Buffer | null> {
    return new Promise((resolve, reject) => (this.#waiter = { resolve, reject }));
  }

  #wake(chunk: Buffer | null): void {
    const waiter = this.#waiter;
    if (!waiter) return;
    this.#waiter = null;
    waiter.resolve(chunk);
  }

  #fail(error: Error): void {
    this.#error = error;
    clearTimeout(this.#graceTimer);
    const waiter = this.#waiter;
    this.#waiter = null;
    waiter?.reject(error);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#abortReason) controller.abort(this.#abortReason);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: UpstreamHeaders): void {
    this.statusCode = statusCode;
    this.headers = headers;
    this.#wake(null);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#discarding) return;
    if (this.#waiter) {
      this.#wake(chunk); // a reader waits, so nothing is queued: straight to it
      return;
    }
    this.#chunks.push(chunk);
    this.#queued += chunk.byteLength;
    if (this.#queued > HIGH_WATER && !this.#paused) {
      this.#paused = true;
      controller.pause();
    }
  }

  onResponseEnd(): void {
    this.ended = true;
    clearTimeout(this.#graceTimer);
    this.#wake(null);
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.ended) return;
    if (!this.#error) this.#fail(error);
  }
}
