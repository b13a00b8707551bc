import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestAccount, type TestServer } from './harness.js';

const test = suite('responses: background mode (queued at once, cancel, resumed event stream), official SDK 7');
let server: TestServer;
let account: TestAccount;

test.before(async () => {
  server = await startServer({ SVC_CHAT_CACHE_TTL_S: '0' });
  account = await server.account(5);
});
test.after(() => server.close());

const slow = { sim: JSON.stringify({ tokens_per_s: 40 }) };

test('answered at once as queued, then runs without the client to completion, charged once', async () => {
  const client = server.openai(account.token);
  const queued = await client.responses.create({ model: 'pro-1', input: 'Work in the background', background: true });
  assert.is(queued.status, 'queued');
  assert.is(queued.background, true);
  // Follow its events to the end (no polling), then read it back.
  const stream = await client.responses.retrieve(queued.id, { stream: true });
  let last = '';
  for await (const event of stream) last = event.type;
  assert.is(last, 'response.completed');
  const done = await client.responses.retrieve(queued.id);
  assert.is(done.status, 'completed');
  assert.ok(done.output_text.length > 0);
  const price = (done as unknown as { svc: { price_usd: number } }).svc.price_usd;
  const usage = await server.request('GET', '/v1/account/usage', { token: account.token });
  const charges = usage.body.recent.filter((entry: { type: string }) => entry.type === 'charge');
  assert.is(charges.length, 1);
  assert.is(Math.round(-charges[0].amount_usd * 1e6), Math.round(price * 1e6));
});

test('a resumed stream starts after the given sequence number and ends with the response', async () => {
  const client = server.openai(account.token);
  const queued = await client.responses.create({
    model: 'pro-1',
    input: 'Stream me slowly in the background',
    background: true,
    metadata: slow,
  });
  const first: number[] = [];
  const stream = await client.responses.retrieve(queued.id, { stream: true });
  for await (const event of stream) {
    first.push(event.sequence_number);
    if (first.length === 5) break;
  }
  const resumed = await client.responses.retrieve(queued.id, { stream: true, starting_after: 4 });
  const rest: { sequence_number: number; type: string }[] = [];
  for await (const event of resumed) rest.push(event);
  assert.equal(first, [0, 1, 2, 3, 4]);
  assert.is(rest[0]!.sequence_number, 5);
  assert.equal(
    rest.map((event) => event.sequence_number),
    rest.map((_, index) => index + 5),
  );
  assert.is(rest.at(-1)!.type, 'response.completed');
});

test('background with stream: the events come on the creating request', async () => {
  const client = server.openai(account.token);
  const stream = await client.responses.create({
    model: 'pro-1',
    input: 'Stream and keep in the background',
    background: true,
    stream: true,
  });
  const types: string[] = [];
  for await (const event of stream) types.push(event.type);
  assert.is(types[0], 'response.created');
  assert.is(types.at(-1), 'response.completed');
});

test('cancel stops a running background response: cancelled, charged what it processed, at most once', async () => {
  const client = server.openai(account.token);
  const queued = await client.responses.create({
    model: 'pro-1',
    input: 'Write a long essay about lighthouses and their keepers, slowly',
    background: true,
    metadata: slow,
  });
  const stream = await client.responses.retrieve(queued.id, { stream: true });
  for await (const event of stream) if (event.type === 'response.output_text.delta') break;
  const cancelled = await client.responses.cancel(queued.id);
  assert.is(cancelled.status, 'cancelled');
  assert.is((await client.responses.retrieve(queued.id)).status, 'cancelled');
  const again = await client.responses.cancel(queued.id);
  assert.is(again.status, 'cancelled', 'cancelling twice changes nothing');
  const account_ = await server.request('GET', '/v1/account', { token: account.token });
  assert.is(account_.body.held_usd, 0, 'nothing stays held');
});

test('bad background requests: store false is 422; cancelling a foreground response is 409; a foreign id 404', async () => {
  const refused = await server.request('POST', '/v1/responses', {
    token: account.token,
    body: { model: 'pro-1', input: 'x', background: true, store: false },
  });
  assert.is(refused.status, 422);
  assert.equal(refused.body.detail[0].loc, ['body', 'store']);
  const plain = await server.openai(account.token).responses.create({ model: 'pro-1', input: 'x' });
  const conflict = await server.request('POST', `/v1/responses/${plain.id}/cancel`, { token: account.token });
  assert.is(conflict.status, 409);
  const other = await server.account(1);
  const foreign = await server.request('POST', `/v1/responses/${plain.id}/cancel`, { token: other.token });
  assert.is(foreign.status, 404);
});

test.run();
