import type { CancelSource } from '../runtime/cancel-signal.js';

/**
 * A neutral HTTP exchange: what route handlers see instead of uWS objects, so they can be
 * driven in memory and never touch a response after the client has gone.
 */
export interface Exchange {
  /** Upper-case method. */
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  readonly query: URLSearchParams;
  /** Request headers, lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  /** Our id for this request, sent back as `X-Request-ID`. */
  readonly requestId: string;
  /** Aborted when the client disconnects (made on first read: prefer `clientGone` where it will do). */
  readonly signal: AbortSignal;
  /** Aborted when the client disconnects, as `signal` is, without an EventTarget per request. */
  readonly clientGone: CancelSource;
  /** Whether a response has been started. */
  readonly started: boolean;
  /** Set when the request's framing is ambiguous (conflicting Content-Length): answer 400 and close. */
  readonly framingError: string | null;

  /** The whole request body, refused with 413 past `limit` bytes. */
  readBody(limit: number): Promise<Buffer>;
  /**
   * Streams the request body to `sink` chunk by chunk, in order. Reads from the socket pause while
   * a promise `sink` returned is pending, so memory stays bounded whatever the body's size.
   * Resolves with the byte count; rejects with 413 past `limit` and when the client disconnects.
   */
  pipeBody(sink: (chunk: Buffer) => void | Promise<void>, limit: number): Promise<number>;
  /** Sends a complete response (headers only, with its Content-Length, to a HEAD). A no-op once the client is gone. */
  send(status: number, headers: Record<string, string>, body: string | Buffer): void;
  /**
   * Starts a streamed response (status and headers now, body by `write`). With `lazy`, the status
   * and headers wait for the first `write` (an empty one sends just them) or `end`, and leave in
   * the same send as that body: one socket write where there were two.
   */
  beginStream(status: number, headers: Record<string, string>, options?: { lazy: boolean }): void;
  /** Writes a chunk of a streamed response; false means the client is slow: await `drained()`. */
  write(chunk: string | Buffer): boolean;
  /** Resolves when the client has taken the queued bytes (or has gone). */
  drained(): Promise<void>;
  /** Ends a streamed response, after `last` when given (in the same send). */
  end(last?: string): void;
  /**
   * Sends a response of a known `size` (sent as Content-Length) whose body comes from `chunks`,
   * pulling the next chunk only once the client has taken the previous one. Resolves when done
   * or when the client has gone.
   */
  sendSized(
    status: number,
    headers: Record<string, string>,
    size: number,
    chunks: AsyncIterable<Buffer>,
  ): Promise<void>;
}
