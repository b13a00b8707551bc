import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { ADMIN_KEY, startServer, type TestServer } from './harness.js';
import { ticketFor } from './realtime-client.js';
import { selfSignedCertificate } from './doubles/tls-proxy.js';

let certDir: string;
let certPem: string;
let tls: TestServer;
let tlsBase: string;
let plain: TestServer;
const test = suite('realtime with the official SDK: bearer API token on the upgrade, ?model=, TLS');

test.before(async () => {
  certDir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
  const { certFile, keyFile } = selfSignedCertificate(certDir);
  certPem = readFileSync(certFile, 'utf8');
  tls = await startServer({ SVC_TLS_CERT_FILE: certFile, SVC_TLS_KEY_FILE: keyFile });
  tlsBase = tls.url.replace(/^http:/, 'https:');
  plain = await startServer();
});
test.after(async () => {
  await tls.close();
  await plain.close();
  rmSync(certDir, { recursive: true, force: true });
});

/** JSON over HTTPS trusting only the test certificate (the harness's `request` speaks plain HTTP). */
function httpsJson(
  method: string,
  path: string,
  options: { token?: string; body?: unknown } = {},
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  return new Promise((resolve, reject) => {
    const req = httpsRequest(tlsBase + path, { method, headers, ca: certPem }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text || 'null') }));
    });
    req.on('error', reject);
    req.end(options.body === undefined ? undefined : JSON.stringify(options.body));
  });
}

/** An account with 10 USD on the TLS server; its API token. */
async function tlsToken(): Promise<string> {
  const created = await httpsJson('POST', '/admin/v1/accounts', {
    token: ADMIN_KEY,
    body: {
      email: `sdk-${Date.now()}-${Math.random()}@example.com`,
      password: 'correct horse battery',
      credit_usd: 10,
    },
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  return created.body.api_token.token as string;
}

/** The realtime charges of the token's account. */
async function realtimeCharges(token: string): Promise<{ amount_usd: number; description: string }[]> {
  const usage = await httpsJson('GET', '/v1/account/usage', { token });
  return (usage.body.recent as { amount_usd: number; description: string }[]).filter((entry) =>
    entry.description.startsWith('realtime call'),
  );
}

/** The plain server's realtime URL with `query`. */
function plainUrl(query: string): string {
  return `${plain.url.replace(/^http/, 'ws')}/v1/realtime${query}`;
}

type Upgrade =
  | { opened: WebSocket; events: any[] }
  | { status: number; headers: Record<string, string | string[] | undefined>; body: any };

/** Tries an upgrade: the open socket (with the events it receives), or the HTTP refusal. */
function upgrade(url: string, headers: Record<string, string> = {}): Promise<Upgrade> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    const events: any[] = [];
    ws.on('message', (data) => events.push(JSON.parse((data as Buffer).toString('utf8'))));
    ws.on('open', () => resolve({ opened: ws, events }));
    ws.on('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text || 'null') }),
      );
    });
    ws.on('error', reject);
  });
}

function refused(result: Upgrade): {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
} {
  if (!('opened' in result)) return result;
  result.opened.close();
  assert.unreachable('the upgrade was accepted');
  throw new Error('unreachable');
}

/** The first event of `type` on an opened socket, as soon as it arrives. */
function nextEvent(call: { opened: WebSocket; events: any[] }, type: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const event = call.events.find((e) => e.type === type);
      if (!event) return;
      call.opened.off('message', check);
      resolve(event);
    };
    call.opened.on('message', check);
    call.opened.once('close', () =>
      reject(new Error(`closed before ${type}; got ${call.events.map((e) => e.type).join(', ')}`)),
    );
    check();
  });
}

test("the SDK's own OpenAIRealtimeWS connects over wss:// with its bearer token, runs a text turn, and the call is billed", async () => {
  const token = await tlsToken();
  const client = new OpenAI({ apiKey: token, baseURL: `${tlsBase}/v1`, maxRetries: 0 });
  const rt = new OpenAIRealtimeWS({ model: 'pro-1', options: { ca: certPem } }, client);
  assert.is(rt.url.protocol, 'wss:');
  assert.is(rt.url.searchParams.get('model'), 'pro-1');
  const errors: Error[] = [];
  rt.on('error', (err) => errors.push(err));
  const deltas: string[] = [];
  rt.on('response.output_text.delta', (event) => deltas.push(event.delta));

  const created = await rt.emitted('session.created');
  assert.is(created.session.type, 'realtime');
  assert.is((created.session as { model?: string }).model, 'pro-1');

  const updatedEvent = rt.emitted('session.updated');
  rt.send({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'] } });
  const updated = await updatedEvent;
  assert.equal((updated.session as { output_modalities?: string[] }).output_modalities, ['text']);

  const itemDone = rt.emitted('conversation.item.done');
  rt.send({
    type: 'conversation.item.create',
    item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What is the capital of France?' }] },
  });
  await itemDone;
  // Both waits go in before the request: one socket read can deliver both events in one go.
  const textDoneEvent = rt.emitted('response.output_text.done');
  const doneEvent = rt.emitted('response.done');
  rt.send({ type: 'response.create' });
  const [textDone, done] = await Promise.all([textDoneEvent, doneEvent]);
  assert.is(done.response.status, 'completed');
  assert.ok(deltas.length > 0, 'text deltas arrived as typed events');
  assert.is(deltas.join(''), textDone.text);
  assert.ok((done.response.usage?.output_tokens ?? 0) > 0);
  assert.equal(errors, []);

  const closed = new Promise<number>((resolve) => rt.socket.once('close', (code) => resolve(code)));
  rt.close();
  assert.is(await closed, 1000);
  // The charge follows the close: wait for the call's actor to finish (settled), not for time to pass.
  const callId = (created.session as { id?: string }).id;
  assert.ok(callId, 'session.created names the call');
  await tls.app.deps.host.waitFor(callId, () => false);
  const charges = await realtimeCharges(token);
  assert.is(charges.length, 1, 'one realtime charge');
  assert.ok(charges[0]!.amount_usd < 0, `charged: ${JSON.stringify(charges)}`);
});

test('over plain ws a bearer API token opens a call without a ticket, on the ?model= asked for (pro-1 when absent)', async () => {
  const account = await plain.account();
  const snapshot = await upgrade(plainUrl('?model=pro-1-2026-03-02'), { authorization: `Bearer ${account.token}` });
  assert.ok('opened' in snapshot, JSON.stringify(snapshot));
  if (!('opened' in snapshot)) return;
  assert.is((await nextEvent(snapshot, 'session.created')).session.model, 'pro-1-2026-03-02');
  snapshot.opened.send(JSON.stringify({ type: 'session.update', session: { model: 'gpt-realtime' } }));
  const error = await nextEvent(snapshot, 'error');
  assert.is(error.error.code, 'model_not_found', 'a session.update cannot move the call to an unknown model');
  assert.is(error.error.param, 'session.model');
  snapshot.opened.close();

  const moving = await upgrade(plainUrl(''), { authorization: `Bearer ${account.token}` });
  assert.ok('opened' in moving);
  if (!('opened' in moving)) return;
  assert.is((await nextEvent(moving, 'session.created')).session.model, 'pro-1');
  moving.opened.close();
});

test('a login session token on the upgrade is refused 401 before the upgrade: it is not an API token', async () => {
  const account = await plain.account();
  const res = refused(await upgrade(plainUrl('?model=pro-1'), { authorization: `Bearer ${account.session}` }));
  assert.is(res.status, 401);
  assert.is(res.body.error.code, 'invalid_api_key');
  assert.ok(res.body.request_id);
  const none = refused(await upgrade(plainUrl('?model=pro-1')));
  assert.is(none.status, 401);
  assert.is(none.body.error.code, 'missing_authorization');
});

test('a disabled API token on the upgrade is refused 401 token_disabled', async () => {
  const account = await plain.account();
  const disabled = await plain.request('PATCH', `/v1/account/tokens/${account.tokenId}`, {
    token: account.session,
    body: { enabled: false },
  });
  assert.is(disabled.status, 200, JSON.stringify(disabled.body));
  const res = refused(await upgrade(plainUrl('?model=pro-1'), { authorization: `Bearer ${account.token}` }));
  assert.is(res.status, 401);
  assert.is(res.body.error.code, 'token_disabled');
});

test('an unknown model is refused 404 model_not_found before the upgrade, with a ticket too (which stays usable)', async () => {
  const account = await plain.account();
  const res = refused(
    await upgrade(plainUrl('?model=gpt-4o-realtime-preview'), { authorization: `Bearer ${account.token}` }),
  );
  assert.is(res.status, 404);
  assert.is(res.body.error.code, 'model_not_found');
  assert.is(res.body.error.param, 'model');
  assert.is(res.body.error.type, 'invalid_request_error');

  const ticket = await ticketFor(plain, account.token);
  const withTicket = refused(await upgrade(plainUrl(`?ticket=${ticket}&model=pro-2`)));
  assert.is(withTicket.status, 404);
  const retried = await upgrade(plainUrl(`?ticket=${ticket}&model=pro-1`));
  assert.ok('opened' in retried, JSON.stringify(retried));
  if ('opened' in retried) retried.opened.close();
});

test('an API token in the query string is never accepted, not even beside a valid header', async () => {
  const account = await plain.account();
  const alone = refused(await upgrade(plainUrl(`?model=pro-1&token=${account.token}`)));
  assert.is(alone.status, 401);
  assert.is(alone.body.error.code, 'invalid_api_key');
  assert.is(alone.body.error.param, 'token');
  const apiKey = refused(await upgrade(plainUrl(`?api_key=${account.token}`)));
  assert.is(apiKey.status, 401);
  const beside = refused(
    await upgrade(plainUrl(`?access_token=${account.token}`), { authorization: `Bearer ${account.token}` }),
  );
  assert.is(beside.status, 401);
});

test("the SDK's sideband form (?call_id=) is refused 400 rather than opening a new call", async () => {
  const account = await plain.account();
  const res = refused(await upgrade(plainUrl('?call_id=rtc_someone'), { authorization: `Bearer ${account.token}` }));
  assert.is(res.status, 400);
  assert.is(res.body.error.code, 'invalid_request');
  assert.is(res.body.error.param, 'call_id');
});

test('upgrades with a bearer token count against its requests per minute: over the limit is 429 with Retry-After', async () => {
  const account = await plain.account();
  const limited = await plain.request('POST', '/v1/account/tokens', {
    token: account.session,
    body: { label: 'one a minute', requests_per_minute: 1 },
  });
  assert.is(limited.status, 201, JSON.stringify(limited.body));
  const first = await upgrade(plainUrl('?model=pro-1'), { authorization: `Bearer ${limited.body.token}` });
  assert.ok('opened' in first);
  if ('opened' in first) first.opened.close();
  const second = refused(await upgrade(plainUrl('?model=pro-1'), { authorization: `Bearer ${limited.body.token}` }));
  assert.is(second.status, 429);
  assert.is(second.body.error.code, 'rate_limit_exceeded');
  assert.ok(Number(second.headers['retry-after']) >= 1);
});

test.run();
