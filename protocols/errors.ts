/**
 * The one error catalogue: every error the API can answer with, its HTTP status and its
 * OpenAI-style `type`, so the official SDK rebuilds the right error class, and its retry advice:
 * `retry: false` marks a refusal that asking again cannot change (a state conflict), answered with
 * `x-should-retry: false` so the SDK does not retry it (it retries 409 by default).
 */
export const ERROR_CATALOGUE = {
  invalid_json: { status: 400, type: 'invalid_request_error' },
  invalid_request: { status: 400, type: 'invalid_request_error' },
  invalid_multipart: { status: 400, type: 'invalid_request_error' },
  invalid_token: { status: 400, type: 'invalid_request_error' },
  token_expired: { status: 400, type: 'invalid_request_error' },
  invalid_code: { status: 400, type: 'invalid_request_error' },
  code_expired: { status: 400, type: 'invalid_request_error' },
  invalid_signature: { status: 400, type: 'invalid_request_error' },
  missing_authorization: { status: 401, type: 'authentication_error' },
  invalid_api_key: { status: 401, type: 'authentication_error' },
  token_disabled: { status: 401, type: 'authentication_error' },
  session_required: { status: 401, type: 'authentication_error' },
  invalid_credentials: { status: 401, type: 'authentication_error' },
  invalid_ticket: { status: 401, type: 'authentication_error' },
  second_factor_required: { status: 401, type: 'authentication_error' },
  invalid_second_factor: { status: 401, type: 'authentication_error' },
  invalid_access_token: { status: 401, type: 'authentication_error' },
  insufficient_balance: { status: 402, type: 'billing_error' },
  account_suspended: { status: 403, type: 'permission_error' },
  url_expired: { status: 403, type: 'permission_error' },
  url_signature_invalid: { status: 403, type: 'permission_error' },
  early_access_required: { status: 403, type: 'permission_error' },
  insufficient_scope: { status: 403, type: 'permission_error' },
  not_found: { status: 404, type: 'not_found_error' },
  model_not_found: { status: 404, type: 'invalid_request_error' },
  method_not_allowed: { status: 405, type: 'invalid_request_error' },
  not_acceptable: { status: 406, type: 'invalid_request_error' },
  conflict: { status: 409, type: 'conflict_error', retry: false },
  email_taken: { status: 409, type: 'conflict_error', retry: false },
  upload_incomplete: { status: 409, type: 'conflict_error', retry: false },
  upload_closed: { status: 409, type: 'conflict_error', retry: false },
  token_used: { status: 409, type: 'conflict_error', retry: false },
  two_factor_enabled: { status: 409, type: 'conflict_error', retry: false },
  two_factor_not_enabled: { status: 409, type: 'conflict_error', retry: false },
  two_factor_setup_required: { status: 409, type: 'conflict_error', retry: false },
  subscription_exists: { status: 409, type: 'conflict_error', retry: false },
  subscription_required: { status: 409, type: 'conflict_error', retry: false },
  billing_account_required: { status: 409, type: 'conflict_error', retry: false },
  approval_expired: { status: 409, type: 'conflict_error', retry: false },
  approval_mismatch: { status: 409, type: 'conflict_error', retry: false },
  payload_too_large: { status: 413, type: 'invalid_request_error' },
  upgrade_required: { status: 426, type: 'invalid_request_error' },
  unsupported_media_type: { status: 415, type: 'invalid_request_error' },
  validation_error: { status: 422, type: 'invalid_request_error' },
  text_policy_unmet: { status: 422, type: 'invalid_request_error', retry: false },
  rate_limit_exceeded: { status: 429, type: 'rate_limit_error' },
  concurrency_limit_exceeded: { status: 429, type: 'rate_limit_error' },
  internal_error: { status: 500, type: 'server_error' },
  not_implemented: { status: 501, type: 'invalid_request_error' },
  upstream_error: { status: 502, type: 'server_error' },
  upstream_unavailable: { status: 503, type: 'server_error' },
  benchmarks_unavailable: { status: 503, type: 'server_error' },
  ocr_unavailable: { status: 503, type: 'server_error' },
  payments_not_configured: { status: 503, type: 'server_error' },
  // Cluster mode: the account's home node cannot be reached and no other node has taken it over yet.
  cluster_unavailable: { status: 503, type: 'server_error' },
  // Probes and shutdown: /readyz while this node should get no traffic; any request while it drains.
  not_ready: { status: 503, type: 'server_error' },
  server_draining: { status: 503, type: 'server_error' },
  payment_provider_error: { status: 502, type: 'server_error' },
  upstream_timeout: { status: 504, type: 'server_error' },
  insufficient_storage: { status: 507, type: 'server_error' },
  // Realtime calls: answered as `error` events on the socket (the call stays up); the status is
  // what the same refusal would be on HTTP.
  invalid_event: { status: 400, type: 'invalid_request_error' },
  invalid_value: { status: 400, type: 'invalid_request_error' },
  invalid_audio: { status: 400, type: 'invalid_request_error' },
  input_audio_buffer_commit_empty: { status: 400, type: 'invalid_request_error' },
  input_audio_buffer_full: { status: 413, type: 'invalid_request_error' },
  transcription_session: { status: 409, type: 'invalid_request_error' },
  call_ending: { status: 409, type: 'invalid_request_error' },
  session_type_locked: { status: 409, type: 'invalid_request_error' },
  conversation_already_has_active_response: { status: 409, type: 'invalid_request_error' },
  response_cancel_not_active: { status: 409, type: 'invalid_request_error' },
  end_ack_unexpected: { status: 409, type: 'invalid_request_error' },
  item_not_found: { status: 404, type: 'invalid_request_error' },
  transcription_failed: { status: 502, type: 'transcription_error' },
} as const satisfies Record<string, { status: number; type: string; retry?: false }>;

/** A code from the catalogue. */
export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** One item of an HTTPValidationError `detail` array (FastAPI's shape). */
export interface ValidationDetail {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** What an error says beyond its code and message. */
export interface ApiErrorOptions {
  param?: string | null;
  /** Headers the answer carries besides the retry advice (a price, say). */
  headers?: Record<string, string>;
  /** When asking again may succeed (`Retry-After`, whole seconds, at least 1). */
  retryAfterMs?: number | null;
  /** False when this error, whatever its code's advice, cannot pass by retrying (a terminal backend failure). */
  retry?: boolean;
  detail?: ValidationDetail[];
  cause?: unknown;
}

/** An error the API answers with; anything else thrown by a handler becomes `internal_error`. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly type: string;
  readonly param: string | null;
  /** Every header the answer carries, retry advice included (worked out here, from the catalogue). */
  readonly headers: Record<string, string>;
  readonly detail: ValidationDetail[] | undefined;

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'ApiError';
    const entry: { status: number; type: string; retry?: false } = ERROR_CATALOGUE[code];
    this.code = code;
    this.status = entry.status;
    this.type = entry.type;
    this.param = options.param ?? null;
    this.headers = retryHeaders(options.headers ?? {}, options.retry ?? entry.retry ?? true, options.retryAfterMs);
    this.detail = options.detail;
  }
}

/** `headers` with the retry advice added: `x-should-retry: false`, or `retry-after` when known. */
function retryHeaders(
  headers: Record<string, string>,
  retry: boolean,
  retryAfterMs: number | null | undefined,
): Record<string, string> {
  if (!retry) return { ...headers, 'x-should-retry': 'false' };
  if (retryAfterMs == null || retryAfterMs <= 0) return headers;
  return { ...headers, 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) };
}

/** The longest error message sent; past it a message is cut (a message never echoes a whole client value). */
const MAX_MESSAGE = 2000;

/** A client-supplied value for an error message, cut to `max` characters. */
export function quoted(value: string, max = 100): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}

/** Builds the JSON error body: `{error:{message,type,code,param}, request_id}`, plus `detail` for 422. */
export function errorBody(err: ApiError, requestId: string): Record<string, unknown> {
  const message = err.message.length > MAX_MESSAGE ? `${err.message.slice(0, MAX_MESSAGE)}…` : err.message;
  const body: Record<string, unknown> = {
    error: { message, type: err.type, code: err.code, param: err.param },
    request_id: requestId,
  };
  if (err.detail) body.detail = err.detail;
  return body;
}

/** Turns anything thrown into an Error, once, so callers never handle `unknown` twice. */
export function ensureError(value: unknown): Error {
  if (value instanceof Error) return value;
  return new Error(typeof value === 'string' ? value : JSON.stringify(value));
}
