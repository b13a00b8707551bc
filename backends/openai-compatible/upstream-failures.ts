import { RetryableError, TerminalError } from '../errors.js';

/** Removes secrets from text that came from, or about, the upstream. */
export type Redactor = (text: string) => string;

const BEARER = /Bearer\s+\S+/gi;
const MAX_UPSTREAM_MESSAGE = 300;
/** Any run of this many characters of the key is masked, so a fragment of it (an upstream's own cut) leaks nothing. */
const KEY_FRAGMENT = 8;

/** Marks in `mask` every character of `text` covered by a run of `fragment` characters of `secret`. */
function markSecret(text: string, secret: string, fragment: number, mask: Uint8Array): void {
  const size = Math.min(fragment, secret.length);
  for (let start = 0; start + size <= secret.length; start++) {
    const piece = secret.slice(start, start + size);
    for (let at = text.indexOf(piece); at !== -1; at = text.indexOf(piece, at + 1)) mask.fill(1, at, at + size);
  }
}

/** A redactor that hides `apiKey` (whole, or any fragment of 8 or more characters) and any bearer credential. */
export function createRedactor(apiKey: string | null): Redactor {
  return (text) => {
    let masked = text;
    if (apiKey) {
      const mask = new Uint8Array(text.length);
      markSecret(text, apiKey, KEY_FRAGMENT, mask);
      let out = '';
      for (let at = 0; at < text.length;) {
        if (mask[at] === 0) {
          out += text[at++];
          continue;
        }
        out += '[redacted]';
        while (at < text.length && mask[at] === 1) at++;
      }
      masked = out;
    }
    return masked.replace(BEARER, 'Bearer [redacted]');
  };
}

/** Redacts `text`, then cuts it to a length fit for an error message: in that order, so a cut never exposes part of a secret. */
export function redactedMessage(text: string, redact: Redactor): string {
  const clean = redact(text);
  return clean.length > MAX_UPSTREAM_MESSAGE ? `${clean.slice(0, MAX_UPSTREAM_MESSAGE)}…` : clean;
}

/** Response headers as undici gives them (lower-case names; a repeated header as an array). */
export type UpstreamHeaders = Record<string, string | string[] | undefined>;

/** One header's value (the first when repeated). */
export function headerValue(headers: UpstreamHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Milliseconds to wait from `retry-after-ms` or `Retry-After` (seconds or an HTTP date); null when absent. */
export function retryAfterMs(headers: UpstreamHeaders, now = Date.now()): number | null {
  const ms = Number(headerValue(headers, 'retry-after-ms') ?? Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return Math.round(ms);
  const value = headerValue(headers, 'retry-after')?.trim();
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** The error text of an upstream body, whole (redact it before cutting it, see {@link redactedMessage}): `{error:{message}}` (OpenAI, llama.cpp, Ollama), `{error:"…"}` or `{message}` (vLLM). */
export function upstreamErrorMessage(bodyText: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    return null; // not JSON: an HTML page from a proxy tells the caller nothing useful
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const { error, message } = parsed as { error?: unknown; message?: unknown };
  const text =
    typeof error === 'string'
      ? error
      : typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string'
        ? (error as { message: string }).message
        : typeof message === 'string'
          ? message
          : null;
  return text;
}

/**
 * The error for a non-2xx answer: 429 and 503 are "unavailable" (with the provider's retry delay),
 * 408 and other 5xx retryable, every other 4xx terminal (retrying the same request cannot help).
 */
export function httpFailure(
  status: number,
  headers: UpstreamHeaders,
  bodyText: string,
  redact: Redactor,
): TerminalError | RetryableError {
  const detail = upstreamErrorMessage(bodyText);
  const message = redactedMessage(`upstream answered HTTP ${status}${detail ? `: ${detail}` : ''}`, redact);
  if (status === 429 || status === 503)
    return new RetryableError(message, 'upstream_unavailable', retryAfterMs(headers));
  if (status === 408) return new RetryableError(message, 'upstream_timeout', retryAfterMs(headers));
  if (status >= 500) return new RetryableError(message, 'upstream_error', retryAfterMs(headers));
  return new TerminalError(message, 'upstream_error');
}

/** The first `code` (ECONNREFUSED, ENOTFOUND, UND_ERR_SOCKET, …) along an error's cause chain. */
export function networkErrorCode(error: unknown): string | null {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const { code, cause } = current as { code?: unknown; cause?: unknown };
    if (typeof code === 'string') return code;
    current = cause;
  }
  return null;
}

/** The HTTP client's own timers (undici's 300 s defaults), which only fire when ours are set longer. */
const CLIENT_TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** A network failure before any response (refused, DNS, reset, TLS): the upstream is unavailable. */
export function connectFailure(error: unknown): RetryableError {
  const code = networkErrorCode(error);
  if (code && CLIENT_TIMEOUT_CODES.has(code))
    return new RetryableError(`upstream sent no response headers (${code})`, 'upstream_timeout', null, {
      cause: error,
    });
  return new RetryableError(`upstream unreachable${code ? ` (${code})` : ''}`, 'upstream_unavailable', null, {
    cause: error,
  });
}

/** A connection lost while the answer was streaming: the answer is incomplete, never a silent finish. */
export function dropFailure(error: unknown): RetryableError {
  const code = networkErrorCode(error);
  if (code && CLIENT_TIMEOUT_CODES.has(code))
    return new RetryableError(`upstream stalled mid-answer (${code})`, 'upstream_timeout', null, { cause: error });
  return new RetryableError(
    `upstream connection dropped mid-answer${code ? ` (${code})` : ''}`,
    'upstream_error',
    null,
    { cause: error },
  );
}

/** A stream that breaks the chat-completions protocol. */
export function malformedFailure(what: string, cause?: unknown): RetryableError {
  return new RetryableError(
    `upstream sent a malformed answer: ${what}`,
    'upstream_error',
    null,
    cause === undefined ? undefined : { cause },
  );
}
