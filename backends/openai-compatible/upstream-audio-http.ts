import { RetryableError, TerminalError } from '../errors.js';
import { connectFailure, createRedactor, dropFailure, httpFailure, type Redactor } from './upstream-failures.js';

/** How to reach the upstream's audio endpoints: its base URL (ending in `/v1`), key and timeouts. */
export interface UpstreamAudioOptions {
  baseUrl: string;
  apiKey: string | null;
  /** Time to the response headers (default 60 s). */
  firstByteTimeoutMs?: number;
  /** Longest gap between body chunks (default 30 s). */
  idleTimeoutMs?: number;
}

/** Settings every audio call to one upstream shares. */
export interface UpstreamAudioSettings {
  baseUrl: string;
  authorization: Record<string, string>;
  firstByteTimeoutMs: number;
  idleTimeoutMs: number;
  redact: Redactor;
}

/** Resolves the options once: the key goes only into the Authorization header, and into the redactor. */
export function upstreamAudioSettings(options: UpstreamAudioOptions): UpstreamAudioSettings {
  return {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    authorization: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
    firstByteTimeoutMs: options.firstByteTimeoutMs ?? 60_000,
    idleTimeoutMs: options.idleTimeoutMs ?? 30_000,
    redact: createRedactor(options.apiKey),
  };
}

const ERROR_BODY_LIMIT = 64 * 1024;

/** An upstream response being read: its status and headers, and its body chunk by chunk under the idle timeout. */
export interface UpstreamAudioResponse {
  status: number;
  headers: Record<string, string>;
  chunks(): AsyncGenerator<Buffer, void, undefined>;
  /** Releases the connection (aborts what is left of the body). */
  close(): void;
}

/**
 * POSTs `body` to `{baseUrl}{path}` and returns the response once its headers are in, failing with
 * the same typed errors as the chat upstream (redacted, never the key): a non-2xx answer, a refused
 * connection, silence past the timeouts. An abort of `signal` leaves as its reason.
 */
export async function postUpstreamAudio(
  settings: UpstreamAudioSettings,
  path: string,
  body: string | FormData,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<UpstreamAudioResponse> {
  signal.throwIfAborted();
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  let expired: RetryableError | null = null;
  const expire = (error: RetryableError) => {
    expired = error;
    controller.abort(error);
  };
  const close = () => {
    signal.removeEventListener('abort', onAbort);
    if (!controller.signal.aborted) controller.abort();
  };
  let timer = setTimeout(
    () =>
      expire(
        new RetryableError(
          `upstream sent no response headers within ${settings.firstByteTimeoutMs} ms`,
          'upstream_timeout',
        ),
      ),
    settings.firstByteTimeoutMs,
  );
  let response: Response;
  try {
    response = await fetch(`${settings.baseUrl}${path}`, {
      method: 'POST',
      headers: { ...headers, ...settings.authorization },
      body,
      signal: controller.signal,
    });
  } catch (err) {
    close();
    signal.throwIfAborted();
    throw expired ?? connectFailure(err);
  } finally {
    clearTimeout(timer);
  }
  const headerRecord = Object.fromEntries(response.headers);
  const reader = response.body?.getReader() ?? null;
  async function* chunks(): AsyncGenerator<Buffer, void, undefined> {
    if (!reader) return;
    try {
      for (;;) {
        timer = setTimeout(
          () =>
            expire(
              new RetryableError(`upstream stalled for ${settings.idleTimeoutMs} ms mid-answer`, 'upstream_timeout'),
            ),
          settings.idleTimeoutMs,
        );
        let step: { done: boolean; value?: Uint8Array };
        try {
          step = await reader.read();
        } finally {
          clearTimeout(timer);
        }
        if (step.done || !step.value) return;
        yield Buffer.from(step.value.buffer, step.value.byteOffset, step.value.byteLength);
      }
    } catch (err) {
      signal.throwIfAborted();
      if (err instanceof RetryableError || err instanceof TerminalError) throw err;
      throw expired ?? dropFailure(err);
    } finally {
      close();
    }
  }
  if (response.status < 200 || response.status >= 300) {
    let text = '';
    for await (const chunk of chunks()) {
      text += chunk.toString('utf8');
      if (text.length > ERROR_BODY_LIMIT) break;
    }
    close();
    throw httpFailure(response.status, headerRecord, text, settings.redact);
  }
  return { status: response.status, headers: headerRecord, chunks, close };
}

/** Reads a whole (bounded) body as text. */
export async function readUpstreamText(response: UpstreamAudioResponse, limit: number): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.chunks()) {
    parts.push(chunk);
    size += chunk.length;
    if (size > limit) {
      response.close();
      throw new RetryableError(
        `upstream sent a malformed answer: the body is larger than ${limit} bytes`,
        'upstream_error',
      );
    }
  }
  return Buffer.concat(parts).toString('utf8');
}
