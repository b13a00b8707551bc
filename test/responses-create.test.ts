import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ResponseObjectSchema, ResponseStreamEventSchema } from '../protocols/responses.js';
import { startServer, type TestAccount, type TestServer } from './harness.js';

const test = suite('responses: create, stream, tools, status and price (official openai SDK 7)');
let server: TestServer;
let account: TestAccount;

test.before(async () => {
  server = await startServer();
  account = await server.account(5);
});
test.after(() => server.close());

const balanceOf = async (token: string) =>
  (await server.request('GET', '/v1/account', { token })).body.balance_usd as number;

test('a plain response: output text, usage, the exact price in svc and the header, charged once', async () => {
  const client = server.openai(account.token);
  const before = await balanceOf(account.session);
  const { data: response, response: raw } = await client.responses
    .create({ model: 'pro-1', input: 'Say hello to the Responses API', instructions: 'Be brief.' })
    .withResponse();
  // The SDK adds output_text to what it received; the wire object itself is strict.
  const wire: Record<string, unknown> = { ...response };
  delete wire.output_text;
  ResponseObjectSchema.parse(wire);
  assert.is(response.object, 'response');
  assert.is(response.status, 'completed');
  assert.ok(response.output_text.length > 0, 'the SDK assembles output_text');
  assert.is(response.output[0]!.type, 'message');
  assert.ok(response.usage!.input_tokens > 0 && response.usage!.output_tokens > 0);
  const svc = (response as unknown as { svc: { price_usd: number } }).svc;
  assert.ok(svc.price_usd > 0);
  assert.is(Number(raw.headers.get('x-svc-price-usd')), svc.price_usd);
  const after = await balanceOf(account.session);
  assert.ok(Math.abs(before - after - svc.price_usd) < 1e-9, 'the balance moved by exactly the price');
});

test('streaming: the typed event sequence, numbered, ending with response.completed and its price', async () => {
  const client = server.openai(account.token);
  const stream = await client.responses.create({ model: 'pro-1', input: 'Stream a few words please', stream: true });
  const events: { type: string; sequence_number: number }[] = [];
  for await (const event of stream) {
    ResponseStreamEventSchema.parse(event);
    events.push(event);
  }
  const types = events.map((event) => event.type);
  assert.equal(types.slice(0, 4), [
    'response.created',
    'response.in_progress',
    'response.output_item.added',
    'response.content_part.added',
  ]);
  assert.ok(types.filter((type) => type === 'response.output_text.delta').length > 1, 'several deltas');
  assert.equal(types.slice(-4), [
    'response.output_text.done',
    'response.content_part.done',
    'response.output_item.done',
    'response.completed',
  ]);
  assert.equal(
    events.map((event) => event.sequence_number),
    events.map((_, index) => index),
  );
  const final = events.at(-1) as unknown as { response: { svc: { price_usd: number }; output_text?: string } };
  assert.ok(final.response.svc.price_usd > 0);
});

test('stream helper: finalResponse equals the stored response', async () => {
  const client = server.openai(account.token);
  const stream = client.responses.stream({ model: 'pro-1', input: 'Tell me about streams' });
  let text = '';
  stream.on('response.output_text.delta', (event) => (text += event.delta));
  const final = await stream.finalResponse();
  assert.is(final.output_text, text);
  const stored = await client.responses.retrieve(final.id);
  assert.is(stored.output_text, text);
  assert.is(stored.status, 'completed');
});

test('a function tool loop: function_call, then the output sent back answers in text quoting it', async () => {
  const client = server.openai(account.token);
  const tools = [
    {
      type: 'function' as const,
      name: 'get_weather',
      description: 'The weather in a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      strict: true,
    },
  ];
  const first = await client.responses.create({
    model: 'pro-1',
    input: 'What is the weather in Paris? Use get_weather.',
    tools,
  });
  const call = first.output.find((item) => item.type === 'function_call');
  assert.ok(call && call.type === 'function_call');
  assert.is(call.name, 'get_weather');
  assert.equal(JSON.parse(call.arguments), { city: 'Paris' });
  const second = await client.responses.create({
    model: 'pro-1',
    previous_response_id: first.id,
    input: [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny, 24 C' }],
    tools,
  });
  assert.is(second.output[0]!.type, 'message');
  assert.match(second.output_text, 'sunny, 24 C');
  // The same loop without chaining: the client replays the items itself.
  const replayed = await client.responses.create({
    model: 'pro-1',
    input: [
      { role: 'user', content: 'What is the weather in Paris? Use get_weather.' },
      call,
      { type: 'function_call_output', call_id: call.call_id, output: 'sunny, 24 C' },
    ],
    tools,
  });
  assert.match(replayed.output_text, 'sunny, 24 C');
});

test('max_output_tokens cuts the answer: status incomplete with its reason', async () => {
  const client = server.openai(account.token);
  const response = await client.responses.create({
    model: 'pro-1',
    input: 'Write a long story about a lighthouse keeper and the sea, with many details',
    max_output_tokens: 16,
  });
  assert.is(response.status, 'incomplete');
  assert.equal(response.incomplete_details, { reason: 'max_output_tokens' });
  assert.ok(response.usage!.output_tokens <= 16);
});

test.run();
