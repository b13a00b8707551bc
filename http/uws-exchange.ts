import { STATUS_CODES } from 'node:http';
import type { HttpRequest, HttpResponse } from '@trufflesuite/uws-js-unofficial';
import { ApiError } from '../protocols/errors.js';
import type { Exchange } from './exchange.js';

const BODYLESS = new Set(['GET', 'HEAD', 'OPTIONS']);
const statusLines = new Map<number, string>();

function statusLine(status: number): string {
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
  readonly query: URLSearchParams;
  readonly headers: Record<string, string> = {};
  readonly signal: AbortSignal;
  started = false;

  private readonly abort = new AbortController();
  private finished = false;
  private chunks: Buffer[] = [];
  private received = 0;
  private bodyDone: boolean;
  private overflow = false;
  private waiter: { limit: number; resolve: (body: Buffer) => void; reject: (err: Error) => void } | undefined;
  private drainWaiters: (() => void)[] = [];

  constructor(private readonly res: HttpResponse, req: HttpRequest, readonly requestId: string, private readonly hardLimit: number) {
    this.method = req.getCaseSensitiveMethod().toUpperCase();
    const url = req.getUrl();
    this.path = url.length > 1 && url.endsWith('/') ? url.slice(0, -1) : url;
    this.query = new URLSearchParams(req.getQuery() ?? '');
    req.forEach((key, value) => {
      this.headers[key] = value;
    });
    this.signal = this.abort.signal;
    res.onAborted(() => {
      this.finished = true;
      this.abort.abort();
      this.waiter?.reject(new Error('client disconnected'));
      this.flushDrainWaiters();
    });
    this.bodyDone = BODYLESS.has(this.method);
    if (!this.bodyDone) res.onData((chunk, isLast) => this.onChunk(chunk, isLast));
  }

  private onChunk(chunk: ArrayBuffer, isLast: boolean): void {
    this.received += chunk.byteLength;
    const limit = this.waiter?.limit ?? this.hardLimit;
    if (this.received > limit) {
      this.overflow = true;
      this.chunks = [];
    } else if (!this.overflow) {
      this.chunks.push(Buffer.from(chunk.slice(0))); // uWS neuters the ArrayBuffer after this call
    }
    if (isLast) {
      this.bodyDone = true;
      this.settleBody();
    }
  }

  private settleBody(): void {
    const waiter = this.waiter;
    if (!waiter || !this.bodyDone) return;
    this.waiter = undefined;
    if (this.overflow || this.received > waiter.limit) waiter.reject(tooLarge(waiter.limit));
    else waiter.resolve(this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks));
    this.chunks = [];
  }

  readBody(limit: number): Promise<Buffer> {
    const declared = Number(this.headers['content-length'] ?? 0);
    if (declared > limit || this.received > limit) return Promise.reject(tooLarge(limit));
    if (this.finished && !this.started) return Promise.reject(new Error('client disconnected'));
    return new Promise((resolve, reject) => {
      this.waiter = { limit, resolve, reject };
      this.settleBody();
    });
  }

  send(status: number, headers: Record<string, string>, body: string | Buffer): void {
    if (this.finished || this.started) return;
    this.started = true;
    this.finished = true;
    this.res.cork(() => {
      this.res.writeStatus(statusLine(status));
      this.res.writeHeader('x-request-id', this.requestId);
      for (const name in headers) this.res.writeHeader(name, headers[name]!);
      // A reply sent before the body was read must not leave the rest of the upload on the socket.
      this.res.end(body, !this.bodyDone);
    });
  }

  beginStream(status: number, headers: Record<string, string>): void {
    if (this.finished || this.started) return;
    this.started = true;
    this.res.cork(() => {
      this.res.writeStatus(statusLine(status));
      this.res.writeHeader('x-request-id', this.requestId);
      for (const name in headers) this.res.writeHeader(name, headers[name]!);
    });
  }

  write(chunk: string | Buffer): boolean {
    if (this.finished) return true;
    let ok = true;
    this.res.cork(() => {
      ok = this.res.write(chunk);
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
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  private flushDrainWaiters(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const resolve of waiters) resolve();
  }

  end(): void {
    if (this.finished) return;
    this.finished = true;
    this.res.cork(() => this.res.end());
    this.flushDrainWaiters();
  }
}

function tooLarge(limit: number): ApiError {
  return new ApiError('payload_too_large', `Request body exceeds the limit of ${limit} bytes.`);
}
