import type { z } from 'zod';
import { ApiError, ensureError, errorBody } from '../protocols/errors.js';
import { parseOrThrow } from '../protocols/validation.js';
import type { Logger } from '../runtime/logger.js';
import type { Exchange } from './exchange.js';
import type { Perimeter } from './perimeter.js';
import type { Principal, RequestContext, RouteDef } from './route.js';
import type { Router } from './router.js';

const JSON_HEADERS = { 'content-type': 'application/json' };

/** Sends `body` as JSON. */
export function sendJson(ex: Exchange, status: number, body: unknown, headers?: Record<string, string>): void {
  ex.send(status, headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS, JSON.stringify(body));
}

/** Sends an error in the envelope; anything that is not an ApiError is logged and becomes a 500. */
export function sendError(ex: Exchange, thrown: unknown, logger: Logger): void {
  let err: ApiError;
  if (thrown instanceof ApiError) {
    err = thrown;
  } else {
    const cause = ensureError(thrown);
    if (ex.signal.aborted) return; // the client left; nothing to answer
    logger.error('unhandled error', { request_id: ex.requestId, method: ex.method, path: ex.path, err: cause });
    err = new ApiError('internal_error', `Internal error; report request_id ${ex.requestId} if it persists.`, { cause });
  }
  if (ex.started) {
    logger.warn('error after response started', { request_id: ex.requestId, code: err.code });
    ex.end();
    return;
  }
  sendJson(ex, err.status, errorBody(err, ex.requestId), err.headers);
}

function parseJsonBody(raw: Buffer, contentType: string | undefined): unknown {
  // Any declared type is read as JSON (curl -d sends form-urlencoded), except multipart, which is not JSON.
  if (contentType && /^multipart\//i.test(contentType)) {
    throw new ApiError('unsupported_media_type', `Unsupported Content-Type "${contentType}": this route takes application/json.`);
  }
  if (raw.length === 0) throw new ApiError('invalid_json', 'Request body is empty: send a JSON object.');
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (cause) {
    throw new ApiError('invalid_json', `Request body is not valid JSON: ${ensureError(cause).message}`, { cause });
  }
}

/** Routes one exchange: match, perimeter, handler, reply, and the error envelope for every failure. */
export async function dispatch(
  ex: Exchange,
  deps: { router: Router<RouteDef>; perimeter: Perimeter; logger: Logger; maxBodyBytes: number },
): Promise<void> {
  let principal: Principal | undefined;
  try {
    const match = deps.router.match(ex.method, ex.path);
    if (match.kind === 'not_found') throw new ApiError('not_found', `Unknown route: ${ex.method} ${ex.path}`);
    if (match.kind === 'method_not_allowed') {
      throw new ApiError('method_not_allowed', `Method ${ex.method} is not allowed on ${ex.path}; allowed: ${match.allowed.join(', ')}.`, {
        headers: { allow: match.allowed.join(', ') },
      });
    }
    const route = match.route;
    principal = deps.perimeter.authenticate(route.auth, ex.headers.authorization);
    const limit = route.maxBodyBytes ?? deps.maxBodyBytes;
    const ctx: RequestContext = {
      ex,
      params: match.params,
      principal,
      json: async <S extends z.ZodType>(schema: S) => parseOrThrow(schema, parseJsonBody(await ex.readBody(limit), ex.headers['content-type'])),
      query: <S extends z.ZodType>(schema: S) => parseOrThrow(schema, Object.fromEntries(ex.query), 'query'),
    };
    const reply = await route.handler(ctx);
    if (reply) sendJson(ex, reply.status, reply.body, reply.headers);
    else if (!ex.started) throw new Error(`route ${route.method} ${route.path} returned without answering`);
  } catch (thrown) {
    if (principal && thrown instanceof ApiError && thrown.status === 402) deps.perimeter.countDenied(principal);
    sendError(ex, thrown, deps.logger);
  }
}
