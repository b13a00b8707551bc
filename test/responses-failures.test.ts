import OpenAI from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chunk, sendEvent, startFakeUpstream, startSse, type FakeHandler, type FakeUpstream } from './fake-upstream.js';
import { startServer, type TestAccount, type TestServer } from './harness.js';

const test = suite('responses: failures end as response.failed, never a truncated success, and charge nothing');
let upstream: FakeUpstream;
let server: TestServer;
let account: TestAccount;
let mode: 'drop' | 'refuse' = 'drop';

const handler: FakeHandler = (_request, res) => {
  if (mode === 'refuse') {
    res.writeHead(503, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'overloaded' } }));
    return;
  }
  startSse(res);
  sendEvent(res, chunk({ content: 'Half an ' }));
  sendEvent(res, chunk({ content: 'answer' }));
  // The drop follows the deltas on the same connection, so the server has relayed them first.
  setTimeout(() => res.destroy(), 20);
};

test.before(async () => {
  upstream = await startFakeUpstream(handler);
  server = await startServer({
    SVC_BACKEND: 'openai-compatible',
    SVC_UPSTREAM_BASE_URL: upstream.url,
    SVC_UPSTREAM_API_KEY: 'sk-upstream',
    SVC_UPSTREAM_MODEL: 'upstream-model-7b',
    SVC_UPSTREAM_TIMEOUT_MS: '2000',
    SVC_CHAT_CACHE_TTL_S: '0',
  });
  account = await server.account(5);
});
test.after(async () => {
  await server.close();
  await upstream.close();
});

const micros = async () =>
  Math.round((await server.request('GET', '/v1/account', { token: account.token })).body.balance_usd * 1e6);

test('a mid-stream upstream drop ends with response.failed (stored as failed) and charges nothing', async () => {
  mode = 'drop';
  const before = await micros();
  const stream = await server.openai(account.token).responses.create({ model: 'pro-1', input: 'x', stream: true });
  const types: string[] = [];
  let last: { type: string; response?: OpenAI.Responses.Response } | undefined;
  for await (const event of stream) {
    types.push(event.type);
    last = event;
  }
  assert.ok(types.includes('response.output_text.delta'), 'the deltas streamed first');
  assert.not.ok(types.includes('response.completed'));
  assert.is(last!.type, 'response.failed');
  assert.is(last!.response!.status, 'failed');
  assert.is(last!.response!.error!.code, 'upstream_error');
  assert.is(await micros(), before);
  const stored = await server.openai(account.token).responses.retrieve(last!.response!.id);
  assert.is(stored.status, 'failed');
  // The SDK's stream helper refuses to call a failed response final.
  try {
    await server.openai(account.token).responses.stream({ model: 'pro-1', input: 'x' }).finalResponse();
    assert.unreachable('a failed response is not a final one');
  } catch (err) {
    assert.instance(err, Error);
  }
});

test('an upstream failure before anything streamed is a plain HTTP error, JSON or SSE', async () => {
  mode = 'refuse';
  const before = await micros();
  for (const stream of [false, true]) {
    const res = await server.request('POST', '/v1/responses', {
      token: account.token,
      body: { model: 'pro-1', input: 'x', stream },
    });
    assert.ok(res.status >= 502 && res.status <= 504, String(res.status));
    assert.match(res.body.error.code, /^upstream_/);
  }
  assert.is(await micros(), before);
});

test.run();
