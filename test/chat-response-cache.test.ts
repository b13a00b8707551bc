import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chatBody, startServer, type TestAccount, type TestServer } from './harness.js';

const test = suite('chat completions: response cache for deterministic requests');
let server: TestServer;
let account: TestAccount;

test.before(async () => {
  server = await startServer();
  account = await server.account(5);
});
test.after(() => server.close());

const post = (body: unknown, token = account.token) => server.request('POST', '/v1/chat/completions', { token, body });

test('an identical deterministic request is served from the cache, charged its prompt tokens only', async () => {
  const body = chatBody('Cache me please', { temperature: 0 });
  const first = await post(body);
  assert.is(first.body.svc.cached, false);
  const before = (await server.request('GET', '/v1/account', { token: account.token })).body.balance_usd;
  const second = await post(body);
  assert.is(second.body.svc.cached, true);
  assert.is(second.body.choices[0].message.content, first.body.choices[0].message.content);
  assert.is(second.body.usage.completion_tokens, 0);
  assert.is(second.body.usage.prompt_tokens, first.body.usage.prompt_tokens);
  assert.is(Math.round(second.body.svc.price_usd * 1e6), second.body.usage.prompt_tokens * 12);
  const after = (await server.request('GET', '/v1/account', { token: account.token })).body.balance_usd;
  assert.is(Math.round((before - after) * 1e6), Math.round(second.body.svc.price_usd * 1e6));
});

test('stream and user do not change the key; a streamed hit replays the answer', async () => {
  const body = chatBody('Cache across delivery', {});
  const first = await post(body);
  const res = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.token}` },
    body: JSON.stringify({ ...body, stream: true, user: 'someone' }),
  });
  const chunks = (await res.text())
    .split('\n\n')
    .filter((e) => e.startsWith('data: {'))
    .map((e) => JSON.parse(e.slice(6)));
  const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
  assert.is(text, first.body.choices[0].message.content);
  assert.is(chunks.at(-1).svc.cached, true);
});

test('sampling requests, other accounts and changed bodies are not served from the cache', async () => {
  const body = chatBody('Not for everyone');
  await post(body);
  assert.is((await post({ ...body, temperature: 0.7 })).body.svc.cached, false);
  assert.is((await post({ ...body, max_tokens: 65 })).body.svc.cached, false);
  const other = await server.account(1);
  assert.is((await post(body, other.token)).body.svc.cached, false);
});

test('failed runs are never cached', async () => {
  const body = chatBody('fail then?', { metadata: { sim: { fail: 'unavailable' } } });
  assert.is((await post(body)).status, 503);
  assert.is((await post(body)).status, 503);
});

test('a cache TTL of 0 turns the cache off', async () => {
  const off = await startServer({ SVC_CHAT_CACHE_TTL_S: '0' });
  try {
    const acct = await off.account(1);
    const body = chatBody('no cache here');
    await off.request('POST', '/v1/chat/completions', { token: acct.token, body });
    const again = await off.request('POST', '/v1/chat/completions', { token: acct.token, body });
    assert.is(again.body.svc.cached, false);
  } finally {
    await off.close();
  }
});

test.run();
