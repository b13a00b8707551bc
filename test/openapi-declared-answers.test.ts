import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { RouteDef, RouteSchema } from '../http/route.js';
import { allRoutes } from '../http/routes/index.js';
import { SseDecoder } from '../protocols/sse-decoder.js';
import { simVoiceWav } from './audio-fixtures.js';
import { ADMIN_KEY, chatBody, startServer, type TestAccount, type TestServer } from './harness.js';
import { connectCall } from './realtime-client.js';
import { clipBody } from './video-fixture.js';

// The OpenAPI document publishes what each route declares; this checks the declarations against
// real answers: the status is a declared one, the media type is declared, and the body (or each
// SSE event) is accepted by the declared zod schema, one or more routes of every area.
const test = suite('openapi: what each route declares is what it really answers (status, media type, body, events)');
let server: TestServer;
let account: TestAccount;
let routes: RouteDef[];

test.before(async () => {
  server = await startServer();
  account = await server.account(50);
  routes = allRoutes(server.app.deps);
});
test.after(() => server.close());

/** A real answer: status, media type, and the body as text and bytes. */
interface Answer {
  status: number;
  type: string;
  text: string;
  bytes: Buffer;
  headers: Headers;
}

function declaredOf(method: string, template: string): RouteSchema {
  const route = routes.find((r) => r.method === method && r.path === template);
  assert.ok(route, `${method} ${template} is a route`);
  assert.ok(route.schema, `${method} ${template} declares a schema`);
  return route.schema;
}

/** The `data:` payloads of an SSE body, `[DONE]` left out. */
const sseData = (text: string): unknown[] =>
  text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice(6)) as unknown);

function parsedBy(schema: NonNullable<RouteSchema['response']>, value: unknown, what: string): any {
  const result = schema.safeParse(value);
  if (!result.success)
    assert.unreachable(
      `${what}: the answer does not match the declared schema: ${JSON.stringify(result.error.issues).slice(0, 600)}\n${JSON.stringify(value).slice(0, 400)}`,
    );
  return result.data;
}

/**
 * Calls `template` (its `:params` filled from `params`) and checks the answer against the route's
 * declaration; returns the parsed JSON body (or the events, or the bytes' answer).
 */
async function call(
  method: RouteDef['method'],
  template: string,
  options: {
    params?: Record<string, string>;
    body?: unknown;
    token?: string;
    query?: string;
    headers?: Record<string, string>;
  } = {},
): Promise<{ answer: Answer; body: any }> {
  const path = template.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) =>
    encodeURIComponent(options.params?.[name] ?? ''),
  );
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? account.token : options.token;
  if (token) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(`${server.url}${path}${options.query ?? ''}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  const answer: Answer = {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    text: bytes.toString('utf8'),
    bytes,
    headers: res.headers,
  };
  const what = `${method} ${template}`;
  const declared = declaredOf(method, template);
  const statuses =
    declared.status === undefined ? [200] : typeof declared.status === 'number' ? [declared.status] : declared.status;
  assert.ok(
    statuses.includes(answer.status),
    `${what}: status ${answer.status} is not declared (${statuses.join(', ')}): ${answer.text.slice(0, 300)}`,
  );
  const base = answer.type.split(';')[0]!.trim().toLowerCase();
  if (base === 'application/json' && declared.response)
    return { answer, body: parsedBy(declared.response, JSON.parse(answer.text), what) };
  if (base === 'text/event-stream' && declared.events) {
    const events = sseData(answer.text);
    assert.ok(events.length > 0, `${what}: events`);
    return { answer, body: events.map((event, i) => parsedBy(declared.events!, event, `${what} event ${i}`)) };
  }
  const media = (declared.media ?? []).map((type) => type.split(';')[0]!.trim().toLowerCase());
  assert.ok(
    media.includes(base) || media.includes('application/octet-stream'),
    `${what}: ${answer.type} is not a declared media type (${media.join(', ')})`,
  );
  assert.ok(answer.bytes.length > 0, `${what}: bytes`);
  return { answer, body: null };
}

test('health, realtime ticket and the MCP endpoints (the schemas added for the contract)', async () => {
  const health = await call('GET', '/healthz', { token: '' });
  assert.is(health.body.status, 'ok');
  const ticket = await call('POST', '/v1/realtime/ticket');
  assert.is(ticket.body.object, 'realtime.ticket');
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'contract', version: '1' } },
  };
  const mcpHeaders = { accept: 'application/json, text/event-stream' };
  const docs = await call('POST', '/mcp/docs', { token: '', body: init, headers: mcpHeaders });
  assert.is(docs.body.id, 1);
  assert.ok(docs.body.result.serverInfo);
  const product = await call('POST', '/mcp', {
    body: { jsonrpc: '2.0', id: 'x', method: 'tools/list' },
    headers: mcpHeaders,
  });
  assert.ok(Array.isArray(product.body.result.tools));
});

test('accounts, early access and the admin API', async () => {
  await call('GET', '/v1/account/tier');
  await call('GET', '/v1/early-access', { token: '' });
  await call('POST', '/v1/account/password-reset/request', { token: '', body: { email: account.email } });
  await call('POST', '/v1/account/email-verification/request', { token: account.session });
  await call('POST', '/v1/account/2fa/setup', { token: account.session });
  const admin = { token: ADMIN_KEY, params: { id: account.id } };
  await call('GET', '/admin/v1/machines', { token: ADMIN_KEY });
  await call('GET', '/admin/v1/accounts/:id', admin);
  await call('POST', '/admin/v1/accounts/:id/credit', { ...admin, body: { usd: 1 } });
  await call('GET', '/admin/v1/accounts/:id/early-access', admin);
  await call('GET', '/admin/v1/waitlist', { token: ADMIN_KEY });
  const metrics = await call('GET', '/metrics', { token: ADMIN_KEY });
  assert.match(metrics.answer.text, /# TYPE/);
});

test('chat: a completion as JSON and as SSE, a session, its list and its events page', async () => {
  await call('POST', '/v1/chat/completions', { body: chatBody('contract check') });
  const streamed = await call('POST', '/v1/chat/completions', { body: chatBody('contract stream', { stream: true }) });
  assert.ok(streamed.body.length >= 2, 'chunks');
  const session = await call('POST', '/v1/chat/sessions', { body: chatBody('contract session') });
  const params = { session_id: session.body.id as string };
  await call('GET', '/v1/chat/sessions/:session_id', { params });
  await call('GET', '/v1/chat/sessions', {});
  await call('GET', '/v1/chat/sessions/:session_id/events-page', { params });
});

test('files and resumable uploads', async () => {
  const file = await call('POST', '/v1/files', {
    body: { filename: 'notes.txt', file_data: Buffer.from('contract notes').toString('base64') },
  });
  const params = { file_id: file.body.id as string };
  await call('GET', '/v1/files', {});
  await call('GET', '/v1/files/:file_id', { params });
  const content = await call('GET', '/v1/files/:file_id/content', { params });
  assert.is(content.answer.text, 'contract notes');
  await call('POST', '/v1/files/search', { body: { query: 'notes' } });
  await call('DELETE', '/v1/files/:file_id', { params });
  const upload = await call('POST', '/v1/files/uploads', {
    body: { filename: 'big.bin', bytes: 10, mime_type: 'application/octet-stream' },
  });
  await call('GET', '/v1/files/uploads/:upload_id', { params: { upload_id: upload.body.id as string } });
  await call('DELETE', '/v1/files/uploads/:upload_id', { params: { upload_id: upload.body.id as string } });
});

test('images, video jobs and video projects', async () => {
  await call('POST', '/v1/images/generations', { body: { prompt: 'a contract lighthouse', size: '256x256' } });
  const job = await call('POST', '/v1/videos/generations', { body: clipBody('contract') });
  await call('GET', '/v1/videos/generations/:job_id', { params: { job_id: job.body.id as string } });
  await call('GET', '/v1/videos', {});
  const project = await call('POST', '/v1/video-projects', { body: { name: 'Contract' } });
  await call('GET', '/v1/video-projects/:project_id', { params: { project_id: project.body.id as string } });
  await call('GET', '/v1/video-projects', {});
});

test('audio: speech bytes, a transcription, a sound effect and its manifest, voices', async () => {
  const speech = await call('POST', '/v1/audio/speech', { body: { input: 'Contract check.', response_format: 'wav' } });
  assert.is(speech.answer.type, 'audio/wav');
  const transcription = await call('POST', '/v1/audio/transcriptions', {
    body: { file_data: simVoiceWav('Meet me at nine.').toString('base64') },
  });
  assert.type(transcription.body.text, 'string');
  const text = await call('POST', '/v1/audio/transcriptions', {
    body: { file_data: simVoiceWav('Meet me at nine.').toString('base64'), response_format: 'vtt' },
  });
  assert.match(text.answer.text, /^WEBVTT/);
  const streamed = await call('POST', '/v1/audio/transcriptions', {
    body: { file_data: simVoiceWav('Meet me at nine.').toString('base64'), stream: true },
  });
  assert.is(streamed.body.at(-1).type, 'transcript.text.done');
  const effect = await call('POST', '/v1/audio/sound-effects', {
    body: { prompt: 'a door creaks', duration_seconds: 1 },
  });
  const sha256 = effect.answer.headers.get('x-svc-manifest-sha256')!;
  await call('GET', '/v1/audio/sound-effects/manifests/:sha256', { token: '', params: { sha256 } });
  await call('GET', '/v1/audio/voices', {});
});

/**
 * Opens an SSE route that stays open and checks its answer against the declaration: the status,
 * the media type, and every `data:` against the declared events; stops once `until` holds for
 * the events so far (or the stream ends) and returns them with their `event:` names.
 */
async function stream(
  template: string,
  options: {
    params?: Record<string, string>;
    query?: string;
    until: (seen: { event: string; data: any }[]) => boolean;
    during?: () => Promise<void>;
  },
) {
  const declared = declaredOf('GET', template);
  assert.ok(declared.events, `GET ${template} declares its events`);
  const path = template.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) =>
    encodeURIComponent(options.params?.[name] ?? ''),
  );
  const abort = new AbortController();
  const res = await fetch(`${server.url}${path}${options.query ?? ''}`, {
    headers: { authorization: `Bearer ${ADMIN_KEY}`, accept: 'text/event-stream' },
    signal: abort.signal,
  });
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  const seen: { event: string; data: any }[] = [];
  const decoder = new SseDecoder((message) =>
    seen.push({
      event: message.event ?? 'message',
      data: parsedBy(declared.events!, JSON.parse(message.data), `GET ${template} ${message.event} event`),
    }),
  );
  const reading = (async () => {
    for await (const chunk of res.body!) {
      decoder.push(chunk as Uint8Array);
      if (options.until(seen)) return abort.abort();
    }
  })().catch((err: unknown) => {
    if (!abort.signal.aborted) throw err;
  });
  await options.during?.();
  // uWS holds no event-loop handle of its own: the timer keeps the process up while the stream runs.
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise(
    (_, reject) =>
      (timer = setTimeout(() => reject(new Error(`GET ${template}: ${seen.map((m) => m.event).join(', ')}`)), 10_000)),
  );
  await Promise.race([reading, timeout]).finally(() => clearTimeout(timer));
  return seen;
}

test('the inspector: its API (pages, SSE, time travel, timeline, machine exports) and its page', async () => {
  const admin = { token: ADMIN_KEY };
  const session = await call('POST', '/v1/chat/sessions', {
    body: chatBody('contract inspect', { require_approval: true }),
  });
  const params = { id: session.body.id as string };
  const list = await call('GET', '/admin/v1/actors', { ...admin, query: '?machine=chat-session&limit=500' });
  assert.ok(
    list.body.data.some((actor: { id: string }) => actor.id === params.id),
    'the parked session is listed',
  );
  const detail = await call('GET', '/admin/v1/actors/:id', { ...admin, params });
  assert.is(detail.body.live, true);
  // Approving and acknowledging moves it to its end: the list stream and the actor's own stream see it.
  const moves = async () => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.is(
      (await server.request('POST', `/v1/chat/sessions/${params.id}/approve`, { token: account.token })).status,
      200,
    );
  };
  const listed = await stream('/admin/v1/actors/stream', {
    query: `?machine=chat-session&owner=${account.id}`,
    until: (seen) => seen.some((m) => m.data.id === params.id),
    during: moves,
  });
  assert.ok(listed.every((m) => m.event === 'actor'));
  const acknowledge = async () => {
    for (
      let i = 0;
      i < 500 &&
      (await server.request('GET', `/v1/chat/sessions/${params.id}`, { token: account.token })).body.state !==
        'completed';
      i++
    )
      await new Promise((resolve) => setTimeout(resolve, 10));
    assert.is(
      (await server.request('POST', `/v1/chat/sessions/${params.id}/acknowledge`, { token: account.token })).status,
      200,
    );
  };
  const streamed = await stream('/admin/v1/actors/:id/events', {
    params,
    query: '?stream=true',
    until: (seen) => seen.at(-1)?.event === 'end',
    during: acknowledge,
  });
  assert.ok(
    ['event', 'step', 'end'].every((name) => streamed.some((m) => m.event === name)),
    streamed.map((m) => m.event).join(', '),
  );
  const events = await call('GET', '/admin/v1/actors/:id/events', { ...admin, params, query: '?limit=2' });
  assert.is(events.body.data.length, 2);
  const steps = await call('GET', '/admin/v1/actors/:id/steps', { ...admin, params });
  assert.ok(steps.body.data.length >= 2);
  const at = await call('GET', '/admin/v1/actors/:id/at/:seq', { ...admin, params: { ...params, seq: '1' } });
  assert.is(at.body.seq, 1);
  const machine = await call('GET', '/admin/v1/machines/:name', { ...admin, params: { name: 'chat-session' } });
  assert.ok(machine.body.transitions.length > 0);
  const mermaid = await call('GET', '/admin/v1/machines/:name', {
    ...admin,
    params: { name: 'chat-session' },
    query: '?format=mermaid',
  });
  assert.match(mermaid.answer.text, /^stateDiagram-v2/);
  const scxml = await call('GET', '/admin/v1/machines/:name', {
    ...admin,
    params: { name: 'realtime-call' },
    query: '?format=scxml',
  });
  assert.match(scxml.answer.text, /^<scxml /);
  const page = await call('GET', '/inspector', { token: '' });
  assert.match(page.answer.type, /^text\/html/);
  const module = await call('GET', '/inspector/:file', { token: '', params: { file: 'main.js' } });
  assert.match(module.answer.type, /^text\/javascript/);
});

test("the inspector: a realtime call's turn timeline", async () => {
  const call_ = await connectCall(server, account.token);
  try {
    await call_.next('session.created');
    call_.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Name a river.' }] },
    });
    call_.send({ type: 'response.create' });
    await call_.next('response.done', 10_000);
    const calls = await call('GET', '/admin/v1/actors', {
      token: ADMIN_KEY,
      query: `?machine=realtime-call&owner=${account.id}`,
    });
    assert.is(calls.body.data.length, 1, "the account's one call is a live actor");
    const [actor] = calls.body.data;
    const timeline = await call('GET', '/admin/v1/actors/:id/timeline', {
      token: ADMIN_KEY,
      params: { id: actor.id as string },
    });
    assert.ok(
      timeline.body.data.some((mark: { kind: string }) => mark.kind === 'response_done'),
      JSON.stringify(timeline.body.data),
    );
  } finally {
    call_.close();
    await call_.closed;
  }
});

test.run();
