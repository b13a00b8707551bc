import type { z } from 'zod';
import type { ApiError } from '../protocols/errors.js';
import type { AccountRecord } from '../actors/accounts/account-repo.js';
import type { TokenRecord } from '../actors/accounts/token-repo.js';
import type { Logger } from '../runtime/logger.js';
import type { Exchange } from './exchange.js';
import type { Params } from './router.js';

/**
 * Who may call a route: `public` anyone; `token` an API token; `session` a login session token;
 * `account` either; `admin` the operator key.
 */
export type AuthMode = 'public' | 'token' | 'session' | 'account' | 'admin';

/** The authenticated caller. */
export interface Principal {
  kind: 'token' | 'session' | 'admin';
  account: AccountRecord | null;
  token: TokenRecord | null;
  /** The raw session token, for logout and rotation; never logged. */
  sessionToken: string | null;
}

/** What a handler gets: the exchange, path parameters, caller, and body/query readers. */
export interface RequestContext {
  readonly ex: Exchange;
  readonly params: Params;
  readonly principal: Principal;
  /** The request's logger: each line carries its `request_id`, `client` and (tracing on) `trace_id`. */
  readonly log: Logger;
  /** Reads, parses and validates the JSON body (400 on bad JSON, 413 past the cap, 422 on schema). */
  json<S extends z.ZodType>(schema: S): Promise<z.output<S>>;
  /** The same for a body that may be left out: undefined when none was sent (no length, not chunked). */
  optionalJson<S extends z.ZodType>(schema: S): Promise<z.output<S> | undefined>;
  /** Validates the query string (422 on schema). */
  query<S extends z.ZodType>(schema: S): z.output<S>;
}

/** A JSON reply; handlers that stream write to the exchange and return nothing. */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** `body` already encoded as JSON (made once for a store as well): sent as is. */
  encoded?: string;
}

/**
 * What a route takes and answers, as the OpenAPI document publishes it (dispatch never reads it:
 * handlers still parse with the same schemas). A side may have several forms at once (JSON or
 * multipart in; JSON, SSE or bytes out, as the request asks).
 */
export interface RouteSchema {
  summary?: string;
  /** The JSON request body. */
  body?: z.ZodType;
  /** The JSON body may be left out (the route reads it with `optionalJson`). */
  bodyOptional?: true;
  /** A multipart/form-data request body: its text fields, its file parts (name → accepted media type) and which of those must be sent. */
  form?: { fields: z.ZodType; files: Readonly<Record<string, string>>; requiredFiles?: readonly string[] };
  /** A raw request body of this media type (an upload part, a signed webhook payload). */
  rawBody?: string;
  query?: z.ZodType;
  /** The JSON success body. */
  response?: z.ZodType;
  /** The `data:` payload of each event when the route answers text/event-stream. */
  events?: z.ZodType;
  /** The error body when it is not our envelope (a foreign wire format's); validation errors are then in it too. */
  errors?: z.ZodType;
  /** Non-JSON success bodies by media type (audio/mpeg, text/csv, …). */
  media?: readonly string[];
  /** The security schemes a route that authenticates itself accepts (any one of them); else those of its `auth`. */
  security?: readonly ('apiToken' | 'loginSession' | 'adminKey' | 'oauthAccessToken' | 'anthropicApiKey')[];
  /** Request headers the route requires (string values), such as `anthropic-version`. */
  requiredHeaders?: readonly string[];
  /** The success status (200 when absent), or each of them (201 created, 200 replayed); 101 and 204 carry no body. */
  status?: number | readonly number[];
}

/** Where a foreign wire format's credential comes from and how its errors look, from authentication on. */
export interface RouteDialect {
  /** The `Authorization` value to authenticate with (built from another header, such as `x-api-key`). */
  authorization(headers: Readonly<Record<string, string>>): string | undefined;
  /** An error in this format's envelope (`request_id` included). */
  errorReply(err: ApiError, requestId: string): Reply;
}

/** One route of the API. */
export interface RouteDef {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  auth: AuthMode;
  /** Body cap in bytes; the server default when absent. */
  maxBodyBytes?: number;
  /** Schemas for the published API contract (GET /v1/openapi.json). */
  schema?: RouteSchema;
  /** The edges of a foreign wire format (the Anthropic Messages API); ours when absent. */
  dialect?: RouteDialect;
  handler(ctx: RequestContext): Promise<Reply | undefined> | Reply | undefined;
}

/** A 200 (or `status`) JSON reply. */
export function json(body: unknown, status = 200, headers?: Record<string, string>): Reply {
  return headers ? { status, body, headers } : { status, body };
}

/** A 200 JSON reply of `body` whose JSON text `encoded` was made already; when null, encoded as usual. */
export function encodedJson(body: unknown, encoded: string | null, headers: Record<string, string>): Reply {
  return encoded === null ? { status: 200, body, headers } : { status: 200, body, headers, encoded };
}

/** The caller's account; routes behind `token`, `session` or `account` always have one. */
export function accountOf(principal: Principal): AccountRecord {
  if (!principal.account) throw new Error('route reached without an account');
  return principal.account;
}
