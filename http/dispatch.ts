import type { z } from 'zod';
import { ApiError, ensureError, errorBody, quoted } from '../protocols/errors.js';
import { MAX_JSON_DEPTH, pathBeyondDepth } from '../protocols/json-bounds.js';
import { fieldError, parseOrThrow } from '../protocols/validation.js';
import type { Logger } from '../runtime/logger.js';
import type { RequestScope } from '../runtime/request-scope.js';
import type { Exchange } from './exchange.js';
import type { Perimeter } from './perimeter.js';
import type { Principal, RequestContext, RouteDef, RouteDialect } from './route.js';
import type { Router } from './router.js';

const JSON_HEADERS = { 'content-type': 'application/json' };

/** Sends `body` as JSON. */
export function sendJson(
  ex: Exchange,
  status: number,
  body: unknown,
  headers?: Record<string, string>,
  encoded?: string,
): void {
  ex.send(status, headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS, encoded ?? JSON.stringify(body));
}

/** Sends an error in the envelope (the route's dialect's, if any); anything that is not an ApiError is logged and becomes a 500. */
export function sendError(ex: Exchange, thrown: unknown, logger: Logger, dialect?: RouteDialect): void {
  let err: ApiError;
  if (thrown instanceof ApiError) {
    err = thrown;
  } else {
    const cause = ensureError(thrown);
    if (ex.clientGone.aborted) return; // the client left; nothing to answer
    logger.error('unhandled error', { request_id: ex.requestId, method: ex.method, path: ex.path, err: cause });
    err = new ApiError('internal_error', `Internal error; report request_id ${ex.requestId} if it persists.`, {
      cause,
    });
  }
  if (ex.started) {
    logger.warn('error after response started', { request_id: ex.requestId, code: err.code });
    ex.end();
    return;
  }
  if (dialect) {
    const reply = dialect.errorReply(err, ex.requestId);
    sendJson(ex, reply.status, reply.body, reply.headers);
    return;
  }
  sendJson(ex, err.status, errorBody(err, ex.requestId), err.headers);
}

function parseJsonBody(raw: Buffer, contentType: string | undefined): unknown {
  // Any declared type is read as JSON (curl -d sends form-urlencoded), except multipart, which is not JSON.
  if (contentType && /^multipart\//i.test(contentType)) {
    throw new ApiError(
      'unsupported_media_type',
      `Unsupported Content-Type "${quoted(contentType)}": this route takes application/json.`,
    );
  }
  if (raw.length === 0) throw new ApiError('invalid_json', 'Request body is empty: send a JSON object.');
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch (cause) {
    throw new ApiError('invalid_json', `Request body is not valid JSON: ${ensureError(cause).message}`, { cause });
  }
  // Bounded before anything walks it recursively (zod, hashing, msgpackr, JSON.stringify).
  const deep = pathBeyondDepth(value, MAX_JSON_DEPTH);
  if (deep) throw fieldError(['body', ...deep.slice(0, 1)], `nested more than ${MAX_JSON_DEPTH} levels deep`);
  return value;
}

/** Methods the API knows; uWS itself closes the connection on methods outside its own list (PROPFIND, PURGE, …). */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The Allow header for a path's methods: HEAD wherever GET is, and OPTIONS everywhere. */
function allowHeader(methods: readonly string[]): string {
  const all = new Set(methods);
  if (all.has('GET')) all.add('HEAD');
  all.add('OPTIONS');
  return [...all].join(', ');
}

/** Longest path parameter any resource can have (ids are about 30 characters; store keys stop near 2,000 bytes). */
const MAX_PARAM_LENGTH = 200;

/** A parameter no resource can have is a 404 at once, without a store lookup. */
function assertPlausibleParams(params: Record<string, string>): void {
  for (const name in params) {
    const value = params[name]!;
    if (value.length > MAX_PARAM_LENGTH || value.includes('\u0000')) {
      throw new ApiError(
        'not_found',
        `No resource has the ${name} given (longer than ${MAX_PARAM_LENGTH} characters or containing NUL).`,
        { param: name },
      );
    }
  }
}

/**
 * Routes one exchange: match, perimeter, handler, reply, and the error envelope for every failure.
 * Resolves with the matched route's pattern (null when none matched), for the metrics.
 */
export async function dispatch(
  ex: Exchange,
  deps: {
    router: Router<RouteDef>;
    perimeter: Perimeter;
    /** The request's logger (its lines carry the request id, client and trace id). */
    logger: Logger;
    maxBodyBytes: number;
    /** The request's fields: the account is noted on it once authenticated (for the server span). */
    scope?: RequestScope;
  },
): Promise<string | null> {
  let principal: Principal | undefined;
  let pattern: string | null = null;
  let dialect: RouteDialect | undefined;
  try {
    if (ex.framingError) throw new ApiError('invalid_request', `Malformed request: ${ex.framingError}.`);
    if (!KNOWN_METHODS.has(ex.method))
      throw new ApiError('not_implemented', `Method ${ex.method} is not implemented by this server.`);
    // HEAD is GET without the body (the exchange leaves the body out).
    const match = deps.router.match(ex.method === 'HEAD' ? 'GET' : ex.method, ex.path);
    if (match.kind === 'not_found')
      throw new ApiError('not_found', `Unknown route: ${ex.method} ${quoted(ex.path, 200)}`);
    if (match.kind === 'method_not_allowed') {
      const allow = allowHeader(match.allowed);
      if (ex.method === 'OPTIONS') {
        ex.send(204, { allow }, '');
        return null;
      }
      throw new ApiError(
        'method_not_allowed',
        `Method ${ex.method} is not allowed on ${quoted(ex.path, 200)}; allowed: ${allow}.`,
        { headers: { allow } },
      );
    }
    const route = match.route;
    pattern = route.path;
    dialect = route.dialect;
    principal = deps.perimeter.authenticate(
      route.auth,
      dialect ? dialect.authorization(ex.headers) : ex.headers.authorization,
    );
    if (deps.scope && principal.account) deps.scope.accountId = principal.account.id;
    assertPlausibleParams(match.params);
    const limit = route.maxBodyBytes ?? deps.maxBodyBytes;
    const ctx: RequestContext = {
      ex,
      params: match.params,
      principal,
      log: deps.logger,
      json: async <S extends z.ZodType>(schema: S) =>
        parseOrThrow(schema, parseJsonBody(await ex.readBody(limit), ex.headers['content-type'])),
      optionalJson: async <S extends z.ZodType>(schema: S) =>
        Number(ex.headers['content-length'] ?? 0) > 0 || ex.headers['transfer-encoding'] !== undefined
          ? await ctx.json(schema)
          : undefined,
      query: <S extends z.ZodType>(schema: S) => parseOrThrow(schema, Object.fromEntries(ex.query), 'query'),
    };
    const reply = await route.handler(ctx);
    if (reply) sendJson(ex, reply.status, reply.body, reply.headers, reply.encoded);
    else if (!ex.started) throw new Error(`route ${route.method} ${route.path} returned without answering`);
  } catch (thrown) {
    if (principal && thrown instanceof ApiError && thrown.status === 402) deps.perimeter.countDenied(principal);
    sendError(ex, thrown, deps.logger, dialect);
  }
  return pattern;
}
