import type { ApiError } from './errors.js';
import type { AnthropicError, AnthropicErrorType } from './messages.js';

/** The longest message sent, as our own envelope cuts it. */
const MAX_MESSAGE = 2000;

/**
 * Our catalogue's statuses onto Anthropic's error types, so its SDK raises the matching class.
 * Validation (our 422) is Anthropic's 400; an overloaded or unreachable provider (our 503) is its
 * 529. Other statuses stay ours (402 is a billing_error, which the SDK surfaces as a plain APIError).
 */
function anthropicStatus(err: ApiError): { status: number; type: AnthropicErrorType } {
  switch (err.status) {
    case 400:
    case 422:
      return { status: 400, type: 'invalid_request_error' };
    case 401:
      return { status: 401, type: 'authentication_error' };
    case 402:
      return { status: 402, type: 'billing_error' };
    case 403:
      return { status: 403, type: 'permission_error' };
    case 404:
      return { status: 404, type: 'not_found_error' };
    case 413:
      return { status: 413, type: 'request_too_large' };
    case 429:
      return { status: 429, type: 'rate_limit_error' };
    case 503:
      return { status: 529, type: 'overloaded_error' };
    case 504:
      return { status: 504, type: 'timeout_error' };
    default:
      return { status: err.status, type: err.status >= 500 ? 'api_error' : 'invalid_request_error' };
  }
}

/** On these routes the credential may come as `x-api-key`, so a missing one names both ways. */
const MISSING_CREDENTIAL = 'Missing credentials: send "x-api-key: <API token>" or "Authorization: Bearer <API token>".';

/** An error in Anthropic's envelope, with our request id, its status and its retry headers. */
export function anthropicErrorReply(
  err: ApiError,
  requestId: string,
): { status: number; body: AnthropicError; headers: Record<string, string> } {
  const { status, type } = anthropicStatus(err);
  const text = err.code === 'missing_authorization' ? MISSING_CREDENTIAL : err.message;
  const message = text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
  return {
    status,
    body: { type: 'error', error: { type, message }, request_id: requestId },
    // `request-id` is the header Anthropic's SDK reads as the error's requestID.
    headers: { ...err.headers, 'request-id': requestId },
  };
}
