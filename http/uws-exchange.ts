import { STATUS_CODES } from 'node:http';
import type { HttpRequest, HttpResponse } from '@trufflesuite/uws-js-unofficial';
import { ApiError } from '../protocols/errors.js';
import { CancelSource } from '../runtime/cancel-signal.js';
import type { Exchange } from './exchange.js';

const BODYLESS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Received-but-unread body bytes above which the socket is paused, and below which it resumes. */
const HIGH_WATER = 512 * 1024;
const LOW_WATER = 128 * 1024;
/**
 * A reply sent before the body was read keeps the connection (uWS reads the rest into nothing),
 * so a client still uploading gets the status instead of a broken pipe; past this many unread
 * declared bytes the connection is closed instead.
 */
const DRAIN_LIMIT = 1024 ** 3;

interface Pipe {
  sink: (chunk: Buffer) => void | Promise<void>;
  limit: number;
  bytes: number;
  busy: boolean;
  resolve: (bytes: number) => void;
  reject: (err: Error) => void;
}
const statusLines = new Map<number, string>();

/** The HTTP status line for `status`, cached. */
export function statusLine(status: number): string {
  let line = statusLines.get(status);
  if (!line) statusLines.set(status, (line = `${status} ${STATUS_CODES[status] ?? 'Unknown'}`));
  return line;
}

/**
 * The uWS side of an {@link Exchange}. Everything is read from `req` synchronously (uWS frees it
 * when the handler returns), `onAborted` is registered at once, and every write is corked.
 */
export class UwsExchange implements Exchange {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string> = {};
  readonly clientGone = new CancelSource();
  readonly framingError: string | null;
  started = false;

  /** The status sent (0 until a response starts), for the metrics. */
  status = 0;
  private finished = false;
  /** Headers of a stream begun lazily, not written yet: they go out with its first write or its end. */
  private lazyHead: Record<string, string> | null = null;
  /** Body bytes received from the socket but not yet handed to a consumer. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private received = 0;
  private bodyDone: boolean;
  private paused = false;
  /** Set once a consumer failed (413): later body bytes are counted and dropped. */
  private discarding = false;
  private pipe: Pipe | undefined;
  /** Who waits for the socket to drain; null until someone does (most exchanges never wait). */
  private drainWaiters: (() => void)[] | null = null;
  /** The raw query string, parsed on first use (most routes never read it). */
  private rawQuery: string;
  private parsedQuery: URLSearchParams | null = null;

  constructor(
    private readonly res: HttpResponse,
    req: HttpRequest,
    readonly requestId: string,
  ) {
    this.method = req.getCaseSensitiveMethod().toUpperCase();
    const url = req.getUrl();
    this.path = url.length > 1 && url.endsWith('/') ? url.slice(0, -1) : url;
    this.rawQuery = req.getQuery() ?? '';
    let framingError: string | null = null;
    req.forEach((key, value) => {
      // uWS frames the body by the first Content-Length; a second, different one means a proxy in
      // front may frame it otherwise (request smuggling): RFC 9112 §6.3 says reject and close.
      if (key === 'content-length' && key in this.headers && this.headers[key] !== value)
        framingError = 'conflicting Content-Length headers';
      this.headers[key] = value;
    });
    this.framingError = framingError;
    res.onAborted(() => {
      this.finished = true;
      this.clientGone.abort();
      this.pending = [];
      this.pipe?.reject(new Error('client disconnected'));
      this.pipe = undefined;
      this.flushDrainWaiters();
    });
    this.bodyDone = BODYLESS.has(this.method);
    if (!this.bodyDone) res.onData((chunk, isLast) => this.onChunk(chunk, isLast));
  }

  get signal(): AbortSignal {
    return this.clientGone.signal;
  }

  get query(): URLSearchParams {
    if (!this.parsedQuery) {
      this.parsedQuery = new URLSearchParams(this.rawQuery);
      this.rawQuery = '';
    }
    return this.parsedQuery;
  }

  private onChunk(chunk: ArrayBuffer, isLast: boolean): void {
    this.received += chunk.byteLength;
    if (!this.discarding && chunk.byteLength > 0) {
      this.pending.push(Buffer.from(chunk.slice(0))); // uWS neuters the ArrayBuffer after this call
      this.pendingBytes += chunk.byteLength;
      // Nobody is reading fast enough (or at all yet): stop reading the socket until they catch up.
      if (this.pendingBytes > HIGH_WATER && !this.paused && !this.finished) {
        this.paused = true;
        this.res.pause();
      }
    }
    if (isLast) this.bodyDone = true;
    void this.pump();
  }

  /** Hands pending chunks to the consumer one at a time, awaiting its promises. */
  private async pump(): Promise<void> {
    const pipe = this.pipe;
    if (!pipe || pipe.busy) return;
    pipe.busy = true;
    try {
      while (this.pending.length > 0 && this.pipe === pipe) {
        const chunk = this.pending.shift()!;
        this.pendingBytes -= chunk.length;
        pipe.bytes += chunk.length;
        if (pipe.bytes > pipe.limit) throw tooLarge(pipe.limit);
        const result = pipe.sink(chunk);
        if (result) await result;
        if (this.paused && this.pendingBytes <= LOW_WATER && !this.finished) {
          this.paused = false;
          this.res.resume();
        }
      }
      if (this.bodyDone && this.pipe === pipe) {
        this.pipe = undefined;
        pipe.resolve(pipe.bytes);
      }
    } catch (err) {
      if (this.pipe === pipe) this.pipe = undefined;
      this.discardBody();
      pipe.reject(err as Error);
    } finally {
      pipe.busy = false;
    }
  }

  /** Drops what is buffered and reads the rest of the body into nothing. */
  private discardBody(): void {
    this.discarding = true;
    this.pending = [];
    this.pendingBytes = 0;
    if (this.paused && !this.finished) {
      this.paused = false;
      this.res.resume();
    }
  }

  pipeBody(sink: (chunk: Buffer) => void | Promise<void>, limit: number): Promise<number> {
    const declared = Number(this.headers['content-length'] ?? 0);
    if (declared > limit || this.received > limit) {
      this.discardBody();
      return Promise.reject(tooLarge(limit));
    }
    if (this.finished && !this.started) return Promise.reject(new Error('client disconnected'));
    if (this.pipe || this.discarding) return Promise.reject(new Error('the request body is already being read'));
    return new Promise((resolve, reject) => {
      this.pipe = { sink, limit, bytes: 0, busy: false, resolve, reject };
      void this.pump();
    });
  }

  async readBody(limit: number): Promise<Buffer> {
    const chunks: Buffer[] = [];
    await this.pipeBody((chunk) => void chunks.push(chunk), limit);
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  }

  send(status: number, headers: Record<string, string>, body: string | Buffer): void {
    if (this.finished || this.started) return;
    this.started = true;
    this.status = status;
    this.finished = true;
    this.res.cork(() => {
      this.res.writeStatus(statusLine(status));
      this.res.writeHeader('x-request-id', this.requestId);
      for (const name in headers) this.res.writeHeader(name, headers[name]!);
      if (this.method === 'HEAD' && !this.mustClose()) {
        this.res.writeHeader('content-length', String(Buffer.byteLength(body)));
        this.res.endWithoutBody();
      } else {
        this.res.end(this.method === 'HEAD' ? undefined : body, this.mustClose());
      }
    });
  }

  /** Whether the connection must close after this reply: a framing error, or too much body left unread. */
  private mustClose(): boolean {
    if (this.framingError) return true;
    if (this.bodyDone) return false;
    const declared = Number(this.headers['content-length'] ?? 0);
    return declared - this.received > DRAIN_LIMIT;
  }

  beginStream(status: number, headers: Record<string, string>, options?: { lazy: boolean }): void {
    if (this.finished || this.started) return;
    this.started = true;
    this.status = status;
    if (options?.lazy && this.method !== 'HEAD') {
      this.lazyHead = headers;
      return;
    }
    this.res.cork(() => {
      this.writeHead(headers);
      if (this.method === 'HEAD') this.endHead();
    });
  }

  /** Status line and headers; called inside a cork. */
  private writeHead(headers: Record<string, string>): void {
    this.res.writeStatus(statusLine(this.status));
    this.res.writeHeader('x-request-id', this.requestId);
    for (const name in headers) this.res.writeHeader(name, headers[name]!);
  }

  /** A lazy head not written yet goes out now (inside the caller's cork, so with what follows it). */
  private writeLazyHead(): void {
    const headers = this.lazyHead;
    if (!headers) return;
    this.lazyHead = null;
    this.writeHead(headers);
  }

  /** A HEAD answer is complete with its headers: end it and tell the producer to stop. */
  private endHead(): void {
    this.finished = true;
    // Only the argument-less form works in this uWS build (with arguments it sends nothing).
    if (this.mustClose()) this.res.end(undefined, true);
    else this.res.endWithoutBody();
    this.clientGone.abort();
    this.flushDrainWaiters();
  }

  write(chunk: string | Buffer): boolean {
    if (this.finished) return true;
    // An empty chunk would end a chunked body: it only sends a lazy head, if one waits.
    if (chunk.length === 0 && !this.lazyHead) return true;
    let ok = true;
    this.res.cork(() => {
      this.writeLazyHead();
      if (chunk.length > 0) ok = this.res.write(chunk);
    });
    if (!ok) {
      this.res.onWritable(() => {
        this.flushDrainWaiters();
        return true;
      });
    }
    return ok;
  }

  drained(): Promise<void> {
    if (this.finished) return Promise.resolve();
    return new Promise((resolve) => (this.drainWaiters ??= []).push(resolve));
  }

  private flushDrainWaiters(): void {
    const waiters = this.drainWaiters;
    if (!waiters) return;
    this.drainWaiters = null;
    for (const resolve of waiters) resolve();
  }

  end(last?: string): void {
    if (this.finished) return;
    this.finished = true;
    this.res.cork(() => {
      this.writeLazyHead();
      if (last) this.res.write(last);
      this.res.end(undefined, this.mustClose());
    });
    this.flushDrainWaiters();
  }

  async sendSized(
    status: number,
    headers: Record<string, string>,
    size: number,
    chunks: AsyncIterable<Buffer>,
  ): Promise<void> {
    this.beginStream(status, this.method === 'HEAD' ? { ...headers, 'content-length': String(size) } : headers);
    if (this.method === 'HEAD') return;
    if (size === 0) {
      this.end();
      return;
    }
    for await (const chunk of chunks) {
      if (this.finished) return;
      // tryEnd sends Content-Length and ends the response once `size` bytes have gone out.
      const base = this.res.getWriteOffset();
      let result: [boolean, boolean] = [true, false];
      this.res.cork(() => {
        result = this.res.tryEnd(chunk, size);
      });
      if (result[1]) {
        this.finished = true;
        return;
      }
      if (!result[0]) await this.retryUntilTaken(chunk, base, size);
    }
    // The source ended short of `size`: the client cannot be told otherwise, so close.
    if (!this.finished) {
      this.finished = true;
      this.res.close();
    }
  }

  /** Waits for the socket to drain, re-offering what is left of `chunk` after each drain. */
  private retryUntilTaken(chunk: Buffer, base: number, size: number): Promise<void> {
    return new Promise((resolve) => {
      (this.drainWaiters ??= []).push(resolve); // an abort resolves it too
      this.res.onWritable((offset) => {
        let result: [boolean, boolean] = [true, false];
        this.res.cork(() => {
          result = this.res.tryEnd(chunk.subarray(offset - base), size);
        });
        if (result[1]) this.finished = true;
        if (result[0] || result[1]) this.flushDrainWaiters();
        return result[0];
      });
    });
  }
}

function tooLarge(limit: number): ApiError {
  return new ApiError('payload_too_large', `Request body exceeds the limit of ${limit} bytes.`);
}
