import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chatBody, startServer, type TestAccount, type TestServer } from './harness.js';

const test = suite('chat completions: non-streaming answers and exact charges');
let server: TestServer;
let account: TestAccount;

test.before(async () => {
  server = await startServer();
  account = await server.account(5);
});
test.after(() => server.close());

const post = (body: unknown) => server.request('POST', '/v1/chat/completions', { token: account.token, body });

test('the same input gives the same answer (deterministic sim)', async () => {
  const a = await post(chatBody('Determinism check'));
  const b = await post(chatBody('Determinism check'));
  assert.is(a.body.choices[0].message.content, b.body.choices[0].message.content);
  assert.is.not(a.body.id, b.body.id);
});

test('the charge equals processed tokens at 12 and 48 USD per million', async () => {
  const res = await post(chatBody('Price check'));
  const { prompt_tokens, completion_tokens, total_tokens } = res.body.usage;
  assert.is(total_tokens, prompt_tokens + completion_tokens);
  const micros = prompt_tokens * 12 + completion_tokens * 48;
  assert.is(Math.round(res.body.svc.price_usd * 1e6), micros);
  assert.is(res.body.cost.total_usd, res.body.svc.price_usd);
  assert.is(res.body.svc.billing.billing_basis, 'processed_tokens');
  assert.is(res.body.svc.cached, false);
  const ledger = await server.request('GET', '/v1/account/usage?limit=1', { token: account.token });
  assert.is(ledger.body.recent[0].request_id, res.headers.get('x-request-id'));
  assert.is(Math.round(-ledger.body.recent[0].amount_usd * 1e6), micros);
});

test('n returns that many distinct choices and bills them all', async () => {
  const res = await post(chatBody('Several choices', { n: 3 }));
  assert.is(res.body.choices.length, 3);
  assert.equal(
    res.body.choices.map((c: { index: number }) => c.index),
    [0, 1, 2],
  );
  assert.is(new Set(res.body.choices.map((c: { message: { content: string } }) => c.message.content)).size, 3);
});

test('max_tokens caps the answer with finish_reason length', async () => {
  const res = await post(chatBody('Cap me', { max_tokens: 3 }));
  assert.is(res.body.choices[0].finish_reason, 'length');
  assert.ok(res.body.usage.completion_tokens <= 3);
});

test('stop cuts the answer before the stop sequence', async () => {
  const res = await post(chatBody('Stop here please', { stop: ['here'] }));
  assert.not.ok(res.body.choices[0].message.content.includes('here'));
  assert.is(res.body.choices[0].finish_reason, 'stop');
});

test('response_format json_object returns parseable JSON', async () => {
  const res = await post(chatBody('Give JSON', { response_format: { type: 'json_object' }, max_tokens: 500 }));
  const parsed = JSON.parse(res.body.choices[0].message.content);
  assert.type(parsed.answer, 'string');
});

test('a provider outage is an explicit 503 and the hold is released', async () => {
  const before = await server.request('GET', '/v1/account', { token: account.token });
  const res = await post(chatBody('Fail please', { metadata: { sim: { fail: 'unavailable' } } }));
  assert.is(res.status, 503);
  assert.is(res.body.error.code, 'upstream_unavailable');
  const after = await server.request('GET', '/v1/account', { token: account.token });
  assert.is(after.body.balance_usd, before.body.balance_usd);
  assert.is(after.body.held_usd, 0);
});

test('a provider timeout is 504 and a provider error is 502', async () => {
  assert.is((await post(chatBody('t', { metadata: { sim: { fail: 'timeout' } } }))).status, 504);
  assert.is((await post(chatBody('e', { metadata: { sim: { fail: 'error' } } }))).status, 502);
});

test('bad chat requests are 422 with the field named', async () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ messages: [{ role: 'user', content: 'x' }] }, 'body.model'],
    [{ model: 'pro-1', messages: [] }, 'body.messages'],
    [{ model: 'pro-1', messages: [{ role: 'wizard', content: 'x' }] }, 'body.messages.0.role'],
    [{ model: 'pro-1', messages: [{ role: 'user', content: [{ type: 'hologram' }] }] }, 'body.messages.0.content'],
    [{ model: 'pro-1', messages: [{ role: 'user', content: 'x' }], n: 0 }, 'body.n'],
    [{ model: 'pro-1', messages: [{ role: 'user', content: 'x' }], max_tokens: -5 }, 'body.max_tokens'],
    [{ model: 'pro-1', messages: [{ role: 'user', content: 'x' }], temperature: 'hot' }, 'body.temperature'],
    [{ model: 'pro-1', messages: [{ role: 'user', content: 'x' }], stop: ['a', 'b', 'c', 'd', 'e'] }, 'body.stop'],
    [{ model: 'pro-1', messages: [{ role: 'user', content: 'x' }], response_mode: 'turbo' }, 'body.response_mode'],
    [{ model: 'pro-1', messages: [{ role: 'user', content: 'x' }], stream: 'yes' }, 'body.stream'],
  ];
  for (const [body, loc] of cases) {
    const res = await post(body);
    assert.is(res.status, 422, loc);
    const locs = res.body.detail.map((d: { loc: unknown[] }) => d.loc.join('.'));
    assert.ok(
      locs.some((l: string) => l.startsWith(loc)),
      `${loc} not in ${locs}`,
    );
  }
});

test('an unknown model is 404 model_not_found and nothing is held or charged', async () => {
  const before = await server.request('GET', '/v1/account', { token: account.token });
  const res = await post(chatBody('x', { model: 'pro-2' }));
  assert.is(res.status, 404);
  assert.is(res.body.error.code, 'model_not_found');
  const after = await server.request('GET', '/v1/account', { token: account.token });
  assert.is(after.body.balance_usd, before.body.balance_usd);
});

test('a dated snapshot is accepted wherever model is', async () => {
  const res = await post(chatBody('snapshot', { model: 'pro-1-2026-07-11' }));
  assert.is(res.status, 200);
  assert.is(res.body.model, 'pro-1-2026-07-11');
});

test.run();
