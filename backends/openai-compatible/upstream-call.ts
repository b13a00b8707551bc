import type { Dispatcher } from 'undici';
import { SseDecoder } from '../../protocols/sse-decoder.js';
import type { ChatBackendEvent, ChatBackendRequest } from '../chat-backend.js';
import { RetryableError, TerminalError } from '../errors.js';
import { UpstreamAnswer } from './upstream-answer.js';
import {
  connectFailure,
  dropFailure,
  headerValue,
  httpFailure,
  malformedFailure,
  redactedMessage,
  upstreamErrorMessage,
  type Redactor,
} from './upstream-failures.js';
import { createUpstreamRequestBody } from './upstream-request-body.js';
import { UpstreamChunkSchema, UpstreamCompletionSchema, type UpstreamChunk } from './upstream-schemas.js';
import { plainChunk, plainCompletion } from './upstream-plain-shapes.js';
import { UpstreamChunkTemplate } from './upstream-chunk-template.js';
import { UpstreamResponse } from './upstream-response.js';
import type { UpstreamSlots } from './upstream-slots.js';

/** What every call to one upstream shares. */
export interface UpstreamSettings {
  /** undici's connection pool to the upstream's origin (keep-alive, bounded connections). */
  pool: Dispatcher;
  /** `{basePath}/chat/completions`. */
  path: string;
  headers: Readonly<Record<string, string>>;
  /** The upstream's model name, sent instead of our public id. */
  model: string;
  slots: UpstreamSlots;
  connectTimeoutMs: number;
  firstByteTimeoutMs: number;
  idleTimeoutMs: number;
  redact: Redactor;
}

const ERROR_BODY_LIMIT = 64 * 1024;
const JSON_BODY_LIMIT = 16 * 1024 * 1024;
/** After `[DONE]`, how long the rest of the response may take to end so the connection is reused. */
const DRAIN_GRACE_MS = 1000;
/** Why a call that ended before its answer cuts the upstream request (no stack: made once). */
const CLOSED = Object.assign(new Error('upstream call closed before its answer'), { stack: undefined });

/**
 * One request to the upstream, from waiting for a slot to the last event, on undici's `Pool`
 * through its `dispatch` API ({@link UpstreamResponse}: no stream, no AbortController, no
 * per-request closures; an AbortController only for a call that must queue for a slot). A client that asked for a whole answer gets the
 * upstream's JSON answer (`stream: false`); a streaming client gets the upstream's SSE relayed.
 * Every failure leaves as a TerminalError or RetryableError, except an abort of `request.signal`,
 * which leaves as the signal's reason. Timers run only while waiting on the upstream, never while
 * the consumer holds an event (backpressure is not upstream idleness).
 */
export class UpstreamCall {
  readonly #settings: UpstreamSettings;
  readonly #request: ChatBackendRequest;
  /** Cancels the wait for a slot; only while waiting for one. */
  #queue: AbortController | null = null;
  #response: UpstreamResponse | null = null;
  /** Cut by a timeout or the client: later timers do nothing. */
  #stopped = false;
  #phase: 'queued' | 'sent' | 'body' = 'queued';
  #expired: RetryableError | null = null;
  #firstByteTimer: NodeJS.Timeout | undefined;
  #stepTimer: NodeJS.Timeout | undefined;
  #gotFirstByte = false;
  #holdsSlot = false;
  #bodyEnded = false;
  /** The whole answer was read and its last event handed out. */
  #answered = false;

  constructor(settings: UpstreamSettings, request: ChatBackendRequest) {
    this.#settings = settings;
    this.#request = request;
  }

  /** Streams the answer's events; call once. */
  async *events(): AsyncGenerator<ChatBackendEvent, void, undefined> {
    const { signal } = this.#request;
    signal.throwIfAborted();
    signal.addEventListener('abort', this.#onAbort, { once: true });
    this.#firstByteTimer = setTimeout(this.#onFirstByteTimeout, this.#settings.firstByteTimeoutMs);
    let clean = false;
    try {
      const body = JSON.stringify(createUpstreamRequestBody(this.#request, this.#settings.model));
      const { slots } = this.#settings;
      if (!slots.tryAcquire()) {
        this.#queue = new AbortController();
        await slots.wait(this.#queue.signal);
        this.#queue = null;
      }
      this.#holdsSlot = true;
      this.#phase = 'sent';
      const response = await this.#send(body);
      this.#phase = 'body';
      if (response.statusCode < 200 || response.statusCode >= 300) {
        const text = await this.#readText(ERROR_BODY_LIMIT);
        throw httpFailure(response.statusCode, response.headers, text, this.#settings.redact);
      }
      if (/\bjson\b/i.test(headerValue(response.headers, 'content-type') ?? '')) yield* this.#completion();
      else yield* this.#stream();
      clean = true;
    } catch (error) {
      throw this.#failure(error);
    } finally {
      this.#close(clean);
    }
  }

  /** An SSE answer, relayed chunk by chunk. */
  async *#stream(): AsyncGenerator<ChatBackendEvent, void, undefined> {
    const answer = new UpstreamAnswer();
    const out: ChatBackendEvent[] = [];
    const template = new UpstreamChunkTemplate();
    let sawDone = false;
    const decoder = new SseDecoder((event) => {
      if (sawDone) return;
      if (event.data === '[DONE]') sawDone = true;
      else answer.applyChunk(this.#parseChunk(event.data, template), out);
    });
    while (!sawDone) {
      const bytes = await this.#read();
      if (bytes === null) break;
      decoder.push(bytes);
      for (const event of out) {
        this.#request.signal.throwIfAborted();
        yield event;
      }
      out.length = 0;
    }
    if (!sawDone) decoder.end();
    if (!sawDone && !answer.finished) throw malformedFailure('the stream ended without [DONE] or a finish_reason');
    this.#request.signal.throwIfAborted();
    // Complete before the last event: a consumer stops reading at `done`, and the connection must
    // still go back to the pool rather than be torn down.
    this.#answered = true;
    yield answer.done(this.#request.messages);
  }

  /** A whole JSON completion (asked for with `stream: false`, or sent by an upstream that ignored `stream: true`). */
  async *#completion(): AsyncGenerator<ChatBackendEvent, void, undefined> {
    const text = await this.#readText(JSON_BODY_LIMIT);
    if (!this.#bodyEnded) throw malformedFailure(`the JSON body is larger than ${JSON_BODY_LIMIT} bytes`);
    const json = this.#parseJson(text);
    let completion = plainCompletion(json);
    if (!completion) {
      const parsed = UpstreamCompletionSchema.safeParse(json);
      if (!parsed.success) throw malformedFailure('the JSON body is not a chat.completion', parsed.error);
      completion = parsed.data;
    }
    const answer = new UpstreamAnswer();
    const out: ChatBackendEvent[] = [];
    answer.applyCompletion(completion, out);
    out.push(answer.done(this.#request.messages));
    for (const event of out) {
      this.#request.signal.throwIfAborted();
      yield event;
    }
  }

  async #send(body: string): Promise<UpstreamResponse> {
    this.#stepTimer = setTimeout(this.#onConnectTimeout, this.#settings.connectTimeoutMs);
    try {
      const response = new UpstreamResponse();
      this.#response = response;
      const options: Dispatcher.DispatchOptions = {
        path: this.#settings.path,
        method: 'POST',
        headers: this.#request.traceHeaders
          ? { ...this.#settings.headers, ...this.#request.traceHeaders }
          : this.#settings.headers,
        body,
      };
      await response.send(this.#settings.pool, options).head();
      return response;
    } finally {
      clearTimeout(this.#stepTimer);
    }
  }

  /** The next body bytes, or null at the end; arms the idle timer while waiting. */
  async #read(): Promise<Buffer | null> {
    if (this.#gotFirstByte) this.#stepTimer = setTimeout(this.#onIdleTimeout, this.#settings.idleTimeoutMs);
    try {
      const value = await this.#response!.next();
      if (value === null) {
        this.#bodyEnded = true;
        return null;
      }
      if (!this.#gotFirstByte && value.byteLength > 0) {
        this.#gotFirstByte = true;
        clearTimeout(this.#firstByteTimer);
      }
      return value;
    } finally {
      clearTimeout(this.#stepTimer);
    }
  }

  async #readText(limit: number): Promise<string> {
    const parts: Buffer[] = [];
    let size = 0;
    for (let bytes = await this.#read(); bytes !== null; bytes = size < limit ? await this.#read() : null) {
      parts.push(bytes);
      size += bytes.byteLength;
    }
    return parts.length === 1 ? parts[0]!.toString('utf8') : Buffer.concat(parts).toString('utf8');
  }

  #parseJson(data: string): unknown {
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      // No cause: a JSON.parse message quotes the data, which we never let out unredacted.
      throw malformedFailure('a data line is not JSON');
    }
    if (typeof json === 'object' && json !== null && 'error' in json) {
      const message = upstreamErrorMessage(data) ?? 'no message';
      throw new RetryableError(
        redactedMessage(`upstream failed mid-answer: ${message}`, this.#settings.redact),
        'upstream_error',
      );
    }
    return json;
  }

  /** A chunk's data: read through the stream's template when it fits, parsed (and maybe learned from) when not. */
  #parseChunk(data: string, template: UpstreamChunkTemplate): UpstreamChunk {
    const known = template.match(data);
    if (known) return known;
    const json = this.#parseJson(data);
    const plain = plainChunk(json);
    if (plain) {
      template.learn(data, plain);
      return plain;
    }
    const parsed = UpstreamChunkSchema.safeParse(json);
    if (!parsed.success) throw malformedFailure('a chunk is not a chat.completion.chunk', parsed.error);
    return parsed.data;
  }

  /** What to throw for anything caught: the abort reason, our timeout, a typed error, or a network failure. */
  #failure(error: unknown): unknown {
    if (this.#request.signal.aborted) return this.#request.signal.reason;
    if (this.#expired) return this.#expired;
    if (error instanceof RetryableError || error instanceof TerminalError) return error;
    return this.#phase === 'body' ? dropFailure(error) : connectFailure(error);
  }

  #expire(error: RetryableError): void {
    if (this.#stopped) return;
    this.#expired = error;
    this.#stop(error);
  }

  /** Cuts whatever is in flight: the wait for a slot, or the upstream request. */
  #stop(reason: Error): void {
    this.#stopped = true;
    this.#queue?.abort(reason);
    this.#response?.abort(reason);
  }

  readonly #onFirstByteTimeout = (): void => {
    const ms = this.#settings.firstByteTimeoutMs;
    this.#expire(
      this.#phase === 'queued'
        ? new RetryableError(
            `all ${this.#settings.slots.concurrency} upstream slots stayed busy for ${ms} ms`,
            'upstream_unavailable',
          )
        : new RetryableError(`upstream sent nothing within ${ms} ms`, 'upstream_timeout'),
    );
  };

  readonly #onConnectTimeout = (): void => {
    this.#expire(
      new RetryableError(
        `upstream sent no response headers within ${this.#settings.connectTimeoutMs} ms`,
        'upstream_timeout',
      ),
    );
  };

  readonly #onIdleTimeout = (): void => {
    this.#expire(
      new RetryableError(`upstream stalled for ${this.#settings.idleTimeoutMs} ms mid-answer`, 'upstream_timeout'),
    );
  };

  readonly #onAbort = (): void => {
    if (!this.#stopped) this.#stop(this.#request.signal.reason as Error);
    this.#releaseSlot();
  };

  #releaseSlot(): void {
    if (!this.#holdsSlot) return;
    this.#holdsSlot = false;
    this.#settings.slots.release();
  }

  #close(clean: boolean): void {
    clearTimeout(this.#firstByteTimer);
    clearTimeout(this.#stepTimer);
    this.#request.signal.removeEventListener('abort', this.#onAbort);
    this.#releaseSlot();
    if (this.#bodyEnded) return; // the connection is already back in the pool
    // After the answer, the rest (usually just the end of the chunked body) is let through so the
    // keep-alive connection goes back to the pool; otherwise the request is cut.
    if ((clean || this.#answered) && this.#response) this.#response.drain(DRAIN_GRACE_MS);
    else this.#response?.abort(CLOSED);
  }
}
