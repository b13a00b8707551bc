import { ERROR_CATALOGUE } from '../../protocols/errors.js';
import { AnthropicErrorTypeSchema } from '../../protocols/messages.js';
import type { WireResponse } from './send-request.js';

const REQUEST_ID = /^req_[A-Za-z0-9_-]+$/;
/** An error body this large can only be echoing what the client sent. */
const MAX_ERROR_BYTES = 64 * 1024;
const VALIDATION_SOURCES = new Set(['body', 'query', 'path', 'header']);

/** Why the body of an error response is not the API's envelope; empty when it is. */
function envelopeProblems(status: number, body: any, requestId: string | undefined): string[] {
  const problems: string[] = [];
  const error = body?.error;
  if (!error || typeof error !== 'object') return ['error body has no `error` object'];
  if (typeof error.message !== 'string' || error.message.length === 0)
    problems.push('error.message is not a non-empty string');
  if (typeof error.type !== 'string') problems.push('error.type is not a string');
  if (typeof error.code !== 'string') problems.push('error.code is not a string');
  if (!(error.param === null || typeof error.param === 'string'))
    problems.push('error.param is neither null nor a string');
  const entry = (ERROR_CATALOGUE as Record<string, { status: number; type: string }>)[String(error.code)];
  if (!entry) problems.push(`error.code ${JSON.stringify(error.code)} is not in the catalogue`);
  else {
    if (entry.status !== status)
      problems.push(`error.code ${error.code} belongs to status ${entry.status}, sent with ${status}`);
    if (entry.type !== error.type)
      problems.push(`error.type ${error.type} is not the catalogue's ${entry.type} for ${error.code}`);
  }
  if (typeof body.request_id !== 'string') problems.push('request_id missing from the error body');
  else if (body.request_id !== requestId)
    problems.push(`request_id ${body.request_id} differs from X-Request-ID ${requestId}`);
  if (typeof error.message === 'string' && /node_modules|\.ts:\d+|\bat [\w.<>]+ \(/.test(error.message))
    problems.push('error.message carries a stack trace or source path');
  return problems;
}

const ANTHROPIC_TYPES = new Set<string>(AnthropicErrorTypeSchema.options);

/** The Messages API's routes answer Anthropic's envelope (`{type:"error", error:{type, message}, request_id}`). */
function anthropicEnvelopeProblems(status: number, body: any, requestId: string | undefined): string[] {
  const problems: string[] = [];
  if (body?.type !== 'error') problems.push('Messages API error body without type "error"');
  const error = body?.error;
  if (!error || typeof error !== 'object') return [...problems, 'error body has no `error` object'];
  if (typeof error.message !== 'string' || error.message.length === 0)
    problems.push('error.message is not a non-empty string');
  if (!ANTHROPIC_TYPES.has(error.type)) problems.push(`error.type ${JSON.stringify(error.type)} is not Anthropic's`);
  if (status === 422) problems.push('a 422 on the Messages API (validation is its 400 invalid_request_error)');
  if (body.request_id !== requestId)
    problems.push(`request_id ${String(body.request_id)} differs from X-Request-ID ${requestId}`);
  return problems;
}

/** Whether a target is on the Messages API (its own error envelope). */
const isMessagesTarget = (target: string | undefined) => target !== undefined && / \/v1\/messages(\/|$)/.test(target);

/** Why a 422 body lacks the HTTPValidationError `detail` list; empty when it has one. */
function detailProblems(body: any): string[] {
  const detail = body?.detail;
  if (!Array.isArray(detail) || detail.length === 0) return ['422 without a non-empty `detail` array'];
  const problems: string[] = [];
  for (const item of detail) {
    if (!item || typeof item !== 'object') problems.push('a detail item is not an object');
    else if (
      !Array.isArray(item.loc) ||
      !item.loc.every((part: unknown) => typeof part === 'string' || typeof part === 'number')
    )
      problems.push('detail.loc is not an array of strings and numbers');
    else if (!VALIDATION_SOURCES.has(item.loc[0]))
      problems.push(`detail.loc starts with ${JSON.stringify(item.loc[0])}, not body/query/path/header`);
    else if (typeof item.msg !== 'string' || typeof item.type !== 'string')
      problems.push('detail.msg or detail.type is not a string');
    if (problems.length > 0) break;
  }
  return problems;
}

/** 5xx answers that are the documented answer, not a fault, by status and error code. */
const HONEST_REFUSALS: Record<number, string> = {
  // A method the server does not implement (RFC 9110).
  501: 'not_implemented',
  // The benchmark views without a verified evidence package (the fuzz server has none): fail closed.
  503: 'benchmarks_unavailable',
};

/** A 5xx that is the right answer, not a fault. */
function isHonestRefusal(res: WireResponse): boolean {
  const code = res.status === null ? undefined : HONEST_REFUSALS[res.status];
  if (!code) return false;
  try {
    return (JSON.parse(res.body.toString('utf8')) as { error?: { code?: string } }).error?.code === code;
  } catch {
    return false;
  }
}

/** Secrets that must never appear in a response body. */
export interface Secrets {
  adminKey: string;
  /** API token and session values that no response after their creation may carry. */
  tokens: string[];
}

/**
 * The properties every response must have: an answer at all, no 5xx (but a 501 for an unknown
 * method), a server-made `X-Request-ID`, no secret in the body, and for every status >= 400 a
 * small JSON envelope (with `detail` on 422) whose code matches the status. Returns the problems
 * found; an empty list means the response is fine.
 */
export function checkResponse(res: WireResponse, secrets: Secrets, method = 'GET', target?: string): string[] {
  if (res.status === null && res.error?.startsWith('client refused'))
    return [`the generator made a request node:http cannot send (${res.error})`];
  if (res.status === null) return [`no response: ${res.error ?? 'unknown'}`];
  if (res.status === 101) return [];
  const problems: string[] = [];
  if (res.error) problems.push(`response incomplete: ${res.error}`);
  if (res.status >= 500 && !isHonestRefusal(res)) problems.push(`status ${res.status}`);
  const requestId = res.headers['x-request-id'];
  const id = Array.isArray(requestId) ? requestId[0] : requestId;
  if (!id) problems.push('no X-Request-ID header');
  else if (!REQUEST_ID.test(id))
    problems.push(`X-Request-ID ${JSON.stringify(id.slice(0, 80))} is not a server-made id`);
  const text = res.body.toString('utf8');
  if (text.includes(secrets.adminKey)) problems.push('the admin key appears in the response');
  if (secrets.tokens.some((token) => text.includes(token)))
    problems.push('an existing token value appears in the response');
  const truncated = res.bodyBytes > res.body.length;
  if (
    res.status < 300 &&
    method !== 'HEAD' &&
    !truncated &&
    String(res.headers['content-type'] ?? '').startsWith('application/json')
  ) {
    try {
      JSON.parse(text);
    } catch {
      problems.push('a JSON success body does not parse');
    }
  }
  // HEAD answers carry the headers of the GET answer and no body.
  if (res.status >= 400 && method !== 'HEAD') {
    if (!String(res.headers['content-type'] ?? '').startsWith('application/json'))
      problems.push(`error Content-Type is ${String(res.headers['content-type'])}`);
    if (res.bodyBytes > MAX_ERROR_BYTES)
      return [
        ...problems,
        `error body is ${res.bodyBytes} bytes (over ${MAX_ERROR_BYTES}): it echoes client input without a bound`,
      ];
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return [...problems, 'error body is not JSON'];
    }
    if (isMessagesTarget(target)) return [...problems, ...anthropicEnvelopeProblems(res.status, body, id)];
    problems.push(...envelopeProblems(res.status, body, id));
    if (res.status === 422) problems.push(...detailProblems(body));
    if (res.status === 405 && !res.headers.allow) problems.push('405 without an Allow header');
  }
  return problems;
}
