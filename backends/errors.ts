import { ApiError } from '../protocols/errors.js';

/** A backend failure that retrying will not fix (bad request to the provider, refused key). */
export class TerminalError extends Error {
  override name = 'TerminalError';
  constructor(
    message: string,
    readonly kind: 'upstream_error' | 'upstream_unavailable' | 'upstream_timeout' = 'upstream_error',
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A backend failure that may pass: overloaded, down, timed out. `retryAfterMs` when the provider said. */
export class RetryableError extends Error {
  override name = 'RetryableError';
  constructor(
    message: string,
    readonly kind: 'upstream_error' | 'upstream_unavailable' | 'upstream_timeout' = 'upstream_unavailable',
    readonly retryAfterMs: number | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The API's answer for a backend failure: its kind as the code, `Retry-After` when the provider
 * said when to come back, and for a terminal failure the advice not to retry.
 */
export function backendApiError(
  err: TerminalError | RetryableError,
  message: string,
  options: { param?: string | null } = {},
): ApiError {
  const retry = err instanceof TerminalError ? { retry: false } : { retryAfterMs: err.retryAfterMs };
  return new ApiError(err.kind, message, { ...options, ...retry, cause: err });
}
