/**
 * The one error catalogue: every error the API can answer with, its HTTP status and its
 * OpenAI-style `type`, so the official SDK rebuilds the right error class.
 */
export const ERROR_CATALOGUE = {
  invalid_json: { status: 400, type: 'invalid_request_error' },
  invalid_request: { status: 400, type: 'invalid_request_error' },
  invalid_multipart: { status: 400, type: 'invalid_request_error' },
  missing_authorization: { status: 401, type: 'authentication_error' },
  invalid_api_key: { status: 401, type: 'authentication_error' },
  token_disabled: { status: 401, type: 'authentication_error' },
  session_required: { status: 401, type: 'authentication_error' },
  invalid_credentials: { status: 401, type: 'authentication_error' },
  invalid_ticket: { status: 401, type: 'authentication_error' },
  insufficient_balance: { status: 402, type: 'billing_error' },
  account_suspended: { status: 403, type: 'permission_error' },
  not_found: { status: 404, type: 'not_found_error' },
  model_not_found: { status: 404, type: 'invalid_request_error' },
  method_not_allowed: { status: 405, type: 'invalid_request_error' },
  conflict: { status: 409, type: 'conflict_error' },
  email_taken: { status: 409, type: 'conflict_error' },
  upload_incomplete: { status: 409, type: 'conflict_error' },
  upload_closed: { status: 409, type: 'conflict_error' },
  payload_too_large: { status: 413, type: 'invalid_request_error' },
  upgrade_required: { status: 426, type: 'invalid_request_error' },
  unsupported_media_type: { status: 415, type: 'invalid_request_error' },
  validation_error: { status: 422, type: 'invalid_request_error' },
  rate_limit_exceeded: { status: 429, type: 'rate_limit_error' },
  internal_error: { status: 500, type: 'server_error' },
  upstream_error: { status: 502, type: 'server_error' },
  upstream_unavailable: { status: 503, type: 'server_error' },
  upstream_timeout: { status: 504, type: 'server_error' },
  insufficient_storage: { status: 507, type: 'server_error' },
} as const satisfies Record<string, { status: number; type: string }>;

/** A code from the catalogue. */
export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** One item of an HTTPValidationError `detail` array (FastAPI's shape). */
export interface ValidationDetail {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** An error the API answers with; anything else thrown by a handler becomes `internal_error`. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly type: string;
  readonly param: string | null;
  readonly headers: Record<string, string>;
  readonly detail: ValidationDetail[] | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { param?: string | null; headers?: Record<string, string>; detail?: ValidationDetail[]; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.type = ERROR_CATALOGUE[code].type;
    this.param = options.param ?? null;
    this.headers = options.headers ?? {};
    this.detail = options.detail;
  }
}

/** Builds the JSON error body: `{error:{message,type,code,param}, request_id}`, plus `detail` for 422. */
export function errorBody(err: ApiError, requestId: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    error: { message: err.message, type: err.type, code: err.code, param: err.param },
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
