import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import WebSocket from 'ws';
import * as assert from 'uvu/assert';
import { startChildServer } from './child-server.js';
import { ADMIN_KEY, startServer, tempDataDir } from './harness.js';
import { connectCall, realtimeUrl, ticketFor, tryUpgrade } from './realtime-client.js';

const test = suite('deploy: /healthz, /readyz and the drain on SIGTERM of one node');

/** The sim paced so a 30-token answer streams for about a second and a half. */
const SLOW_SIM = { SVC_SIM_TOKENS_PER_S: '20', SVC_CHAT_CACHE_TTL_S: '0', SVC_DRAIN_MS: '30000' };

/** A streamed chat completion: resolves with its first chunk and a promise of the whole text. */
async function startStream(url: string, token: string) {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'pro-1',
      stream: true,
      max_tokens: 30,
      messages: [{ role: 'user', content: 'Tell me a long story about a lighthouse keeper and the sea.' }],
    }),
  });
  assert.is(res.status, 200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const first = decoder.decode((await reader.read()).value);
  const rest = (async () => {
    let text = first;
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value);
    return text;
  })();
  return { first, rest };
}

test('/healthz and /readyz answer ready on a running node, with no secret in either', async () => {
  const server = await startServer();
  try {
    const health = await server.request('GET', '/healthz');
    assert.is(health.status, 200);
    const ready = await server.request('GET', '/readyz');
    assert.is(ready.status, 200);
    assert.equal(ready.body, {
      status: 'ready',
      checks: { booted: true, store_open: true, draining: false, nats_connected: null },
    });
    assert.not.ok(JSON.stringify([health.body, ready.body]).includes(ADMIN_KEY));
    const wrongMethod = await server.request('POST', '/readyz');
    assert.is(wrongMethod.status, 405);
  } finally {
    await server.close();
  }
});

test('while draining: /readyz is 503, new work is refused, the stream in flight ends whole', async () => {
  const server = await startServer(SLOW_SIM);
  const account = await server.account(5);
  const stream = await startStream(server.url, account.token);
  const closing = server.app.close();
  try {
    const ready = await server.request('GET', '/readyz');
    assert.is(ready.status, 503);
    assert.is(ready.body.error.code, 'not_ready');
    assert.match(ready.body.error.message, /draining/);
    assert.is((await server.request('GET', '/healthz')).status, 200);
    const late = await server.request('POST', '/v1/chat/completions', {
      token: account.token,
      body: { model: 'pro-1', messages: [{ role: 'user', content: 'hi' }] },
    });
    assert.is(late.status, 503);
    assert.is(late.body.error.code, 'server_draining');
    assert.is(late.headers.get('retry-after'), '1');
    const text = await stream.rest;
    assert.match(text, /"finish_reason":"length"/);
    assert.ok(text.trimEnd().endsWith('data: [DONE]'), 'the stream ended with [DONE]');
  } finally {
    await closing;
    rmSync(server.dataDir, { recursive: true, force: true });
  }
});

test('while draining: a new realtime call is refused, an open one stays until the drain ends, then closes with 1001', async () => {
  const server = await startServer(SLOW_SIM);
  const account = await server.account(5);
  const call = await connectCall(server, account.token);
  await call.next('session.created');
  const laterTicket = await ticketFor(server, account.token);
  // A stream in flight holds the drain open for about a second and a half.
  const stream = await startStream(server.url, account.token);
  const closing = server.app.close();
  try {
    const refused = await tryUpgrade(realtimeUrl(server, laterTicket));
    assert.ok(refused !== 'opened', 'a call opened while the server drains');
    assert.is(refused.status, 503);
    assert.is(refused.body.error.code, 'server_draining');
    // The stream still runs (it drains for about a second and a half): the call is not cut yet.
    assert.is(call.ws.readyState, WebSocket.OPEN, 'the call was closed before the requests in flight drained');
    const text = await stream.rest;
    assert.ok(text.trimEnd().endsWith('data: [DONE]'), 'the stream ended with [DONE]');
    assert.equal(await call.closed, { code: 1001, reason: 'server shutting down' });
  } finally {
    await closing;
    rmSync(server.dataDir, { recursive: true, force: true });
  }
});

test('SIGTERM: the process lets its stream finish, then exits 0', async () => {
  const dataDir = tempDataDir();
  const child = await startChildServer({ ...SLOW_SIM, SVC_DATA_DIR: dataDir, SVC_ADMIN_KEY: ADMIN_KEY });
  try {
    const created = await fetch(`${child.url}/admin/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'drain@example.com', password: 'correct horse battery', credit_usd: 5 }),
    });
    const token = ((await created.json()) as { api_token: { token: string } }).api_token.token;
    const stream = await startStream(child.url, token);
    const exited = new Promise<number | null>((resolve) => child.process.once('exit', resolve));
    child.process.kill('SIGTERM');
    const text = await stream.rest;
    assert.ok(text.trimEnd().endsWith('data: [DONE]'), 'the stream ended with [DONE]');
    assert.is(await exited, 0);
  } finally {
    await child.kill();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
