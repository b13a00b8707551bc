import { toFile } from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestAccount, type TestServer } from './harness.js';

const test = suite('responses: stored responses, chains, input items, owner only, file search');
let server: TestServer;
let account: TestAccount;
let other: TestAccount;

test.before(async () => {
  server = await startServer({ SVC_CHAT_CACHE_TTL_S: '0' });
  account = await server.account(5);
  other = await server.account(5);
});
test.after(() => server.close());

test('retrieve and delete a stored response; store false keeps nothing', async () => {
  const client = server.openai(account.token);
  const created = await client.responses.create({ model: 'pro-1', input: 'Remember this' });
  const stored = await client.responses.retrieve(created.id);
  assert.is(stored.id, created.id);
  assert.is(stored.output_text, created.output_text);
  await client.responses.delete(created.id);
  const gone = await server.request('GET', `/v1/responses/${created.id}`, { token: account.token });
  assert.is(gone.status, 404);
  assert.is(gone.body.error.code, 'not_found');
  const again = await server.request('DELETE', `/v1/responses/${created.id}`, { token: account.token });
  assert.is(again.status, 404);
  const unstored = await client.responses.create({ model: 'pro-1', input: 'Forget this', store: false });
  assert.is((unstored as unknown as { store: boolean }).store, false);
  assert.is((await server.request('GET', `/v1/responses/${unstored.id}`, { token: account.token })).status, 404);
});

test("another account's response reads as 404 everywhere, never 403", async () => {
  const created = await server.openai(account.token).responses.create({ model: 'pro-1', input: 'Mine' });
  for (const [method, path] of [
    ['GET', `/v1/responses/${created.id}`],
    ['DELETE', `/v1/responses/${created.id}`],
    ['GET', `/v1/responses/${created.id}/input_items`],
  ] as const) {
    const res = await server.request(method, path, { token: other.token });
    assert.is(res.status, 404, `${method} ${path}`);
  }
  const chained = await server.request('POST', '/v1/responses', {
    token: other.token,
    body: { model: 'pro-1', input: 'Continue', previous_response_id: created.id },
  });
  assert.is(chained.status, 404);
  assert.is(chained.body.error.param, 'previous_response_id');
});

test('previous_response_id: the earlier turns are the context, billed as processed input', async () => {
  const client = server.openai(account.token);
  const first = await client.responses.create({ model: 'pro-1', input: 'My name is Ada Lovelace.' });
  const alone = await client.responses.create({ model: 'pro-1', input: 'What is my name?', store: false });
  const second = await client.responses.create({
    model: 'pro-1',
    input: 'What is my name?',
    previous_response_id: first.id,
  });
  assert.is(second.previous_response_id, first.id);
  assert.ok(
    second.usage!.input_tokens > alone.usage!.input_tokens + first.usage!.output_tokens - 1,
    'the first turn (its input and output) is processed again',
  );
  const third = await client.responses.create({ model: 'pro-1', input: 'And again?', previous_response_id: second.id });
  assert.ok(third.usage!.input_tokens > second.usage!.input_tokens, 'a chain grows turn by turn');
});

test('input items: ids, cursor pages in both orders', async () => {
  const client = server.openai(account.token);
  const created = await client.responses.create({
    model: 'pro-1',
    input: [
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'two' },
      { role: 'user', content: 'three' },
      { role: 'user', content: [{ type: 'input_text', text: 'four' }] },
      { role: 'user', content: 'five' },
    ],
  });
  const all = await client.responses.inputItems.list(created.id, { order: 'asc' });
  assert.is(all.data.length, 5);
  assert.ok(all.data.every((item) => typeof item.id === 'string' && item.id.startsWith('msg_')));
  const desc = await server.request('GET', `/v1/responses/${created.id}/input_items?limit=2`, { token: account.token });
  assert.is(desc.body.data.length, 2);
  assert.is(desc.body.has_more, true);
  assert.equal(desc.body.data[0].content, 'five', 'newest first by default');
  const next = await server.request(
    'GET',
    `/v1/responses/${created.id}/input_items?limit=2&after=${desc.body.last_id}`,
    { token: account.token },
  );
  assert.equal(
    next.body.data.map((item: { content: unknown }) => item.content),
    ['three', 'two'],
  );
  const before = await server.request(
    'GET',
    `/v1/responses/${created.id}/input_items?order=asc&before=${all.data[2]!.id}`,
    { token: account.token },
  );
  assert.equal(
    before.body.data.map((item: { id: string }) => item.id),
    [all.data[0]!.id, all.data[1]!.id],
  );
  // The SDK's auto-pagination walks every page.
  const seen: string[] = [];
  for await (const item of client.responses.inputItems.list(created.id, { limit: 2 })) seen.push(item.id);
  assert.is(seen.length, 5);
  const bad = await server.request('GET', `/v1/responses/${created.id}/input_items?after=msg_nope`, {
    token: account.token,
  });
  assert.is(bad.status, 422);
  assert.equal(bad.body.detail[0].loc, ['query', 'after']);
});

test('only a background response streams again; a foreground one (streamed or not) is 409', async () => {
  const client = server.openai(account.token);
  const stream = await client.responses.create({ model: 'pro-1', input: 'Stream once', stream: true });
  let id = '';
  for await (const event of stream) if (event.type === 'response.created') id = event.response.id;
  const plain = await client.responses.create({ model: 'pro-1', input: 'Not streamed' });
  for (const which of [id, plain.id]) {
    const refused = await server.request('GET', `/v1/responses/${which}?stream=true`, { token: account.token });
    assert.is(refused.status, 409);
  }
});

test("file_search over the caller's own files: a file_search_call item, results when included, quoted in the answer", async () => {
  const client = server.openai(account.token);
  await client.files.create({
    file: await toFile(
      Buffer.from('The lighthouse keeper of Skerryvore polished the great lens every dawn.'),
      'keeper.txt',
    ),
    purpose: 'assistants',
  });
  await server.openai(other.token).files.create({
    file: await toFile(Buffer.from('Skerryvore secrets of another account.'), 'secret.txt'),
    purpose: 'assistants',
  });
  const response = await client.responses.create({
    model: 'pro-1',
    input: 'Who polished the lens at Skerryvore?',
    tools: [{ type: 'file_search', vector_store_ids: ['vs_any'] }],
    include: ['file_search_call.results'],
  });
  const call = response.output[0]!;
  assert.is(call.type, 'file_search_call');
  if (call.type !== 'file_search_call') return;
  assert.equal(call.queries, ['Who polished the lens at Skerryvore?']);
  assert.is(call.results!.length, 1, "only the caller's file");
  assert.is(call.results![0]!.filename, 'keeper.txt');
  assert.is(response.output[1]!.type, 'message');
  const without = await client.responses.create({
    model: 'pro-1',
    input: 'Who polished the lens at Skerryvore?',
    tools: [{ type: 'file_search', vector_store_ids: ['vs_any'] }],
  });
  assert.is((without.output[0] as { results: unknown }).results, null);
});

test.run();
