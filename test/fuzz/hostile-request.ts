import { MODEL_CATALOGUE } from '../../protocols/models.js';
import type { FuzzFixtures } from './fuzz-fixtures.js';
import { chooseAuth, type AuthModeName } from './hostile-auth.js';
import { hostileBody, SYSTEMATIC_STRATEGIES } from './hostile-body.js';
import { hostileQuery, hostileSegment, hostileString, type Labelled } from './hostile-values.js';
import { createRng, mixSeed, type Rng } from './prng.js';
import { bodyBaseFor } from './route-bodies.js';
import type { WireRequest } from './send-request.js';

/** A route as the fuzzer needs it (a subset of http/route.ts RouteDef). */
export interface FuzzRoute {
  method: string;
  path: string;
  auth: AuthModeName;
  maxBodyBytes?: number;
}

/** One generated request with everything needed to report and reproduce it. */
export interface FuzzRequest {
  index: number;
  /** `METHOD /pattern` of the route aimed at, or a pseudo-target such as `unknown path`. */
  target: string;
  wire: WireRequest;
  /** Human-readable notes: auth, params, query and body twists. */
  notes: string[];
}

/** What the generator draws from: the routes, the real ids and credentials, and the body cap. */
export interface FuzzPlan {
  seed: number;
  routes: readonly FuzzRoute[];
  fixtures: FuzzFixtures;
  maxBodyBytes: number;
}

/** Targets that are not routes: the WebSocket path as an upgrade, and paths no route has. */
export const EXTRA_TARGETS = ['GET /v1/realtime (upgrade)', 'unknown path', 'unknown method'] as const;

/**
 * The real ids that fit a path parameter, own and foreign, labelled. Reads get ids that stay put;
 * requests that use a resource up (DELETE, approve, cancel, complete) draw from pools.
 */
function idsFor(param: string, route: FuzzRoute, fx: FuzzFixtures): Labelled<string>[] {
  const { own, foreign } = fx;
  const label = (value: string, what: string) => ({ value, label: what });
  const each = (values: string[], what: string) => values.map((value, i) => label(value, `${what} ${i}`));
  const reads = route.method === 'GET';
  switch (param) {
    case 'session_id': {
      const theirs = [
        label(foreign.sessionDone, "another account's session"),
        label(foreign.sessionsAwaiting[0]!, "another account's session awaiting approval"),
        label(own.fileId, 'own file id in a session slot'),
      ];
      if (route.method === 'DELETE')
        return [...each(own.sessionsToDelete, 'own finished session to delete'), ...theirs];
      if (reads)
        return [
          label(own.sessionDone, 'own finished session'),
          label(own.sessionsAwaiting[0]!, 'own session awaiting approval'),
          ...theirs,
        ];
      return [
        ...each(own.sessionsAwaiting, 'own session awaiting approval'),
        label(own.sessionDone, 'own finished session'),
        ...theirs,
      ];
    }
    case 'completion_id':
      return [
        label(own.completionId, 'own recent completion'),
        label(own.sessionCompletionId, "own session's completion id"),
        label(foreign.completionId, "another account's completion"),
        label(foreign.sessionCompletionId, "another account's session completion"),
      ];
    case 'response_id': {
      const theirs = [
        label(foreign.responseId, "another account's response"),
        label(own.completionId, 'own completion id in a response slot'),
      ];
      return route.method === 'DELETE'
        ? [...each(own.responsesToDelete, 'own response to delete'), ...theirs]
        : [label(own.responseId, 'own response'), ...theirs];
    }
    case 'file_id': {
      const theirs = [
        label(foreign.fileId, "another account's file"),
        label(own.uploads[0]!, 'own upload id in a file slot'),
      ];
      return route.method === 'DELETE'
        ? [...each(own.filesToDelete, 'own file to delete'), ...theirs]
        : [label(own.fileId, 'own file'), ...theirs];
    }
    case 'upload_id': {
      const theirs = [
        label(foreign.uploads[0]!, "another account's upload"),
        label(own.sessionDone, 'own session id in an upload slot'),
      ];
      return [
        ...(route.method === 'DELETE'
          ? each(own.uploadsToCancel, 'own upload to cancel')
          : each(own.uploads, 'own upload')),
        ...theirs,
      ];
    }
    case 'model_id':
      return [
        ...MODEL_CATALOGUE.map((model) => label(model.id, 'a catalogue model')),
        label('PRO-1', 'model id in capitals'),
        label('pro-1-2099-01-01', 'snapshot that does not exist'),
      ];
    case 'token':
      // Never the primary token's id: disabling or deleting it would end the run's own access.
      return [label(fx.spareToken.id, 'own spare token id'), label(fx.other.tokenId, "another account's token id")];
    case 'id':
      // Never the primary account: suspending it would end the run's own access.
      return [
        label(fx.victimId, 'victim account id'),
        label(fx.other.id, 'other account id'),
        label(own.fileId, 'a file id as an account id'),
      ];
    case 'part_number':
      return [
        label('0', 'part 0'),
        label('0', 'part 0'),
        label('1', 'part 1'),
        label('00', 'part 00'),
        label('999999999', 'part 999999999'),
        label('-1', 'part -1'),
        label('1.5', 'part 1.5'),
        label('1e3', 'part 1e3'),
      ];
    default:
      return [];
  }
}

/** The path of `pattern` with every `:param` replaced by a hostile or real value. */
function fillPath(rng: Rng, route: FuzzRoute, fx: FuzzFixtures, notes: string[]): string {
  return route.path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment;
      const name = segment.slice(1);
      const value = hostileSegment(rng, idsFor(name, route, fx));
      notes.push(`:${name} = ${value.label}`);
      return value.value;
    })
    .join('/');
}

/**
 * A path no route has. The first passes take the forms in order (the telling ones first), later
 * requests draw them at random.
 */
function unknownPath(rng: Rng, routes: readonly FuzzRoute[], pass: number | null): string {
  const known = rng.pick(routes).path.replace(/:[a-z_]+/g, 'x');
  // Targets that do not start with a slash (`*`, absolute-form, a bare word) never reach us: uWS
  // leaves them unanswered (docs/http-edges.md, test/http-edges.test.ts), so they are not fuzzed here.
  const forms = [
    `/v1/${rng.chars(rng.pick([10, 5000, 9000]))}`,
    '/%00',
    '/../../etc/passwd',
    `${known}/extra`,
    '/',
    '/v2/chat/completions',
    '/v1/chat/completion',
    '/v1',
    '/admin',
    '/admin/v1/accounts/x/y/z',
    `${known}//`,
    `/${known}`,
    known.toUpperCase(),
    '/v1/%2e%2e/%2e%2e/etc/passwd',
    '/v1/files/a/b/c/d/e',
    `/v1/${'a/'.repeat(500)}`,
    '/v1/models%2fpro-1',
    `/${encodeURIComponent(hostileString(rng)) || 'x'}`,
    '/favicon.ico',
    '/.env',
  ];
  return pass !== null && pass < forms.length ? forms[pass]! : rng.pick(forms);
}

function headersFor(
  rng: Rng,
  authorization: string | undefined,
  contentType: string | undefined,
  notes: string[],
): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  if (authorization !== undefined) headers.authorization = authorization;
  if (contentType !== undefined) headers['content-type'] = contentType;
  if (rng.chance(0.08)) {
    headers['x-request-id'] = rng.pick(['<script>', 'req_spoofed', 'x'.repeat(2000), '']);
    notes.push('client-sent X-Request-ID');
  }
  if (rng.chance(0.06)) {
    headers['idempotency-key'] = rng.pick([
      '',
      'k'.repeat(256),
      'k'.repeat(300),
      `fuzz-${rng.int(0, 3)}`,
      '\u00ff\u00fe',
      ' ',
    ]);
    notes.push('Idempotency-Key');
  }
  if (rng.chance(0.04)) {
    headers.accept = rng.pick(['text/event-stream', 'application/xml', '*/*;q=x', '']);
    notes.push(`Accept: ${String(headers.accept)}`);
  }
  if (rng.chance(0.03)) {
    headers.authorization = [String(authorization ?? 'Bearer a'), 'Bearer b'];
    notes.push('two Authorization headers');
  }
  return headers;
}

/** The Messages API's own headers: mostly a valid `anthropic-version`, sometimes the token as `x-api-key`. */
function anthropicHeaders(rng: Rng, headers: Record<string, string | string[]>, notes: string[]): void {
  headers['anthropic-version'] = rng.chance(0.85) ? '2023-06-01' : rng.pick(['', 'latest', 'x'.repeat(300)]);
  if (headers['anthropic-version'] !== '2023-06-01') notes.push('odd anthropic-version');
  if (typeof headers.authorization === 'string' && rng.chance(0.4)) {
    headers['x-api-key'] = headers.authorization.replace(/^Bearer /, '');
    delete headers.authorization;
    notes.push('token as x-api-key');
  }
}

/** How often a route is aimed at after the first pass: bodies are where validation lives. */
function routeWeight(route: FuzzRoute): number {
  if (route.method === 'GET' || route.method === 'DELETE') return 2;
  const { path } = route;
  if (
    path === '/v1/chat/completions' ||
    path === '/v1/chat/sessions' ||
    path === '/v1/estimate' ||
    path === '/v1/responses'
  )
    return 8;
  if (route.path === '/v1/messages') return 6;
  return 4;
}

function describe(label: string, auth: Labelled<string | undefined>, notes: string[]): string[] {
  return [`auth: ${auth.label}`, ...notes, `body: ${label}`];
}

/** A request that no route matches: a WebSocket upgrade attempt, an unknown path or an unknown method. */
function offRouteRequest(rng: Rng, plan: FuzzPlan, index: number, target: string, pass: number | null): FuzzRequest {
  const { routes, fixtures: fx } = plan;
  if (target === 'GET /v1/realtime (upgrade)') {
    // Never with a working credential: a call that opened would hold money past the run.
    const ticket = rng.pick([
      '',
      `?ticket=${rng.chars(rng.pick([8, 43, 5000]))}`,
      '?ticket=%00',
      '?ticket=a&ticket=b',
      '?model=pro-1',
    ]);
    const auth = rng.pick([undefined, `Bearer sk-svc-${rng.chars(20)}`, `Bearer ${fx.other.session}`, 'Bearer x']);
    const headers: Record<string, string> = {
      connection: 'Upgrade',
      upgrade: 'websocket',
      'sec-websocket-version': rng.pick(['13', '8', 'x']),
      'sec-websocket-key': rng.pick(['dGhlIHNhbXBsZSBub25jZQ==', '', 'x'.repeat(100)]),
    };
    if (auth) headers.authorization = auth;
    if (rng.chance(0.3))
      headers['sec-websocket-protocol'] = rng.pick(['realtime', 'x, realtime', ',,,', 'a'.repeat(2000)]);
    return {
      index,
      target,
      wire: { method: 'GET', path: `/v1/realtime${ticket}`, headers, upgrade: true, tag: index },
      notes: [`upgrade with ticket ${ticket.slice(0, 40) || 'none'}`, `auth: ${auth ? 'junk or foreign' : 'none'}`],
    };
  }
  const notes: string[] = [];
  const auth = chooseAuth(rng, 'token', fx);
  const body = hostileBody(rng, { kind: 'json', base: null }, { maxBodyBytes: plan.maxBodyBytes, fx });
  const method =
    target === 'unknown method'
      ? rng.pick(['OPTIONS', 'HEAD', 'PATCH', 'PUT', 'DELETE', 'POST', 'TRACE'])
      : rng.pick(['GET', 'POST', 'DELETE', 'PUT', 'PATCH']);
  const path =
    target === 'unknown method' ? rng.pick(routes).path.replace(/:[a-z_]+/g, 'x') : unknownPath(rng, routes, pass);
  const query = hostileQuery(rng);
  const wire: WireRequest = {
    method,
    path: path + query.value,
    headers: headersFor(rng, auth.value, body.contentType, notes),
    ...(body.body && { body: body.body }),
    tag: index,
  };
  return { index, target, wire, notes: describe(body.label, auth, notes) };
}

/** Builds request number `index` of the run seeded `plan.seed`; the same inputs always build the same request. */
export function buildRequest(plan: FuzzPlan, index: number): FuzzRequest {
  const rng = createRng(mixSeed(plan.seed, index));
  const { routes, fixtures: fx } = plan;
  const targets = [...routes.map((route) => `${route.method} ${route.path}`), ...EXTRA_TARGETS];
  // The first passes aim at every target in turn, each pass with its own body strategy, so a short
  // run hits every route and tries every strategy on it; then targets are drawn at random, routes
  // that take a body (chat above all) more often.
  const pass = Math.floor(index / targets.length);
  const systematic = pass < SYSTEMATIC_STRATEGIES.length;
  const strategy = systematic ? SYSTEMATIC_STRATEGIES[pass] : undefined;
  const target = systematic
    ? targets[index % targets.length]!
    : rng.weighted<string>([
        ...routes.map((route) => [routeWeight(route), `${route.method} ${route.path}`] as const),
        ...EXTRA_TARGETS.map((extra) => [1, extra] as const),
      ]);
  const route = routes.find((candidate) => `${candidate.method} ${candidate.path}` === target);

  if (!route) return offRouteRequest(rng, plan, index, target, systematic ? pass : null);

  const notes: string[] = [];
  let auth = chooseAuth(rng, route.auth, fx, systematic ? 0.9 : undefined);
  // Logging out the run's own session would shut it out of every session route that follows.
  if (route.path === '/v1/auth/logout' && auth.value === `Bearer ${fx.primary.session}`)
    auth = { value: `Bearer ${rng.pick(fx.spareSessions)}`, label: 'spare session' };
  const path = fillPath(rng, route, fx, notes);
  const query = hostileQuery(rng);
  if (query.value) notes.push(`query: ${query.label}`);
  const base = bodyBaseFor(target, route.method, rng, fx);
  const body = hostileBody(rng, base, {
    maxBodyBytes: route.maxBodyBytes ?? plan.maxBodyBytes,
    fx,
    ...(strategy && { strategy }),
  });
  const wire: WireRequest = {
    method: route.method,
    path: path + query.value,
    headers: headersFor(rng, auth.value, body.contentType, notes),
    ...(body.body && { body: body.body }),
    ...(body.chunked && body.body && { chunked: true }),
    // A session's event stream follows it for as long as it lives, the inspector's live list for
    // as long as the client stays: a 200 stream is the answer.
    ...((route.path.endsWith('/events') || route.path.endsWith('/stream')) && { openEnded: true }),
    tag: index,
  };
  if (route.path.startsWith('/v1/messages')) anthropicHeaders(rng, wire.headers, notes);
  return { index, target, wire, notes: describe(body.label, auth, notes) };
}
