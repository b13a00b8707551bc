import Anthropic from '@anthropic-ai/sdk';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { png } from './media-fixtures.js';
import { startServer, type TestAccount, type TestServer } from './harness.js';

const test = suite('clients: the official Anthropic SDK (@anthropic-ai/sdk) against /v1/messages, unmodified');
let server: TestServer;
let account: TestAccount;
let client: Anthropic;

const anthropic = (apiKey: string) => new Anthropic({ apiKey, baseURL: server.url, maxRetries: 0 });

test.before(async () => {
  server = await startServer({ SVC_CHAT_CACHE_TTL_S: '0' });
  account = await server.account(5);
  client = anthropic(account.token);
});
test.after(() => server.close());

const weatherTool: Anthropic.Tool = {
  name: 'get_weather',
  description: 'The weather in a city.',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

test('messages.create: a message with text, end_turn, usage, our svc block and price header', async () => {
  const { data: message, response } = await client.messages
    .create({ model: 'pro-1', max_tokens: 256, messages: [{ role: 'user', content: 'Say hello' }] })
    .withResponse();
  assert.is(message.type, 'message');
  assert.is(message.role, 'assistant');
  assert.match(message.id, /^msg_/);
  assert.is(message.stop_reason, 'end_turn');
  assert.is(message.content[0]?.type, 'text');
  assert.ok((message.content[0] as Anthropic.TextBlock).text.length > 0);
  assert.ok(message.usage.input_tokens > 0 && message.usage.output_tokens > 0);
  const svc = (message as unknown as { svc: { price_usd: number } }).svc;
  assert.is(response.headers.get('x-svc-price-usd'), svc.price_usd.toFixed(6));
  assert.ok(svc.price_usd > 0);
});

test('messages.create: max_tokens cuts the answer (max_tokens), a stop sequence is named (stop_sequence)', async () => {
  const cut = await client.messages.create({
    model: 'pro-1',
    max_tokens: 2,
    messages: [{ role: 'user', content: 'Tell me a long story' }],
  });
  assert.is(cut.stop_reason, 'max_tokens');
  assert.ok(cut.usage.output_tokens <= 2);
  const stopped = await client.messages.create({
    model: 'pro-1',
    max_tokens: 64,
    stop_sequences: ['NEVER-SEEN', 'world'],
    metadata: { user_id: 'u-1', sim: { reply: 'Hello brave new world, again' } } as Anthropic.Metadata,
    messages: [{ role: 'user', content: 'Greet' }],
  });
  assert.is(stopped.stop_reason, 'stop_sequence');
  assert.is(stopped.stop_sequence, 'world');
  assert.is((stopped.content[0] as Anthropic.TextBlock).text, 'Hello brave new ');
});

test('messages.create stream:true: the raw events in Anthropic order, ending in message_delta and message_stop', async () => {
  const stream = await client.messages.create({
    model: 'pro-1',
    max_tokens: 256,
    stream: true,
    messages: [{ role: 'user', content: 'Stream a few words' }],
  });
  const types: string[] = [];
  let text = '';
  let delta: Anthropic.MessageDeltaEvent | undefined;
  for await (const event of stream) {
    types.push(event.type);
    if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
    if (event.type === 'message_delta') delta = event;
  }
  assert.is(types[0], 'message_start');
  assert.is(types[1], 'content_block_start');
  assert.ok(types.filter((t) => t === 'content_block_delta').length > 1, 'the text arrives in pieces');
  assert.equal(types.slice(-3), ['content_block_stop', 'message_delta', 'message_stop']);
  assert.is(delta?.delta.stop_reason, 'end_turn');
  const whole = await client.messages.create({
    model: 'pro-1',
    max_tokens: 256,
    messages: [{ role: 'user', content: 'Stream a few words' }],
  });
  assert.is(text, (whole.content[0] as Anthropic.TextBlock).text, 'deterministic sim: same text streamed or not');
  assert.is(delta?.usage.output_tokens, whole.usage.output_tokens);
});

test('messages.stream helper: text events and finalMessage', async () => {
  const stream = client.messages.stream({
    model: 'pro-1',
    max_tokens: 256,
    messages: [{ role: 'user', content: 'Write two short sentences' }],
  });
  let streamed = '';
  stream.on('text', (piece) => (streamed += piece));
  const final = await stream.finalMessage();
  assert.is(final.stop_reason, 'end_turn');
  assert.is(streamed, (final.content[0] as Anthropic.TextBlock).text);
  assert.ok(final.usage.output_tokens > 0);
  assert.ok(final.usage.input_tokens > 0);
});

test('tools: a full tool loop (tool_use, then the tool_result answered in text), streamed and not', async () => {
  const messages: Anthropic.MessageParam[] = [
    { role: 'user', content: 'What is the weather in Paris? Use get_weather.' },
  ];
  const first = await client.messages.create({ model: 'pro-1', max_tokens: 256, tools: [weatherTool], messages });
  assert.is(first.stop_reason, 'tool_use');
  const call = first.content.find((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
  assert.ok(call);
  assert.is(call.name, 'get_weather');
  assert.equal(call.input, { city: 'Paris' });
  // The stream helper assembles the same call from input_json_delta events.
  const streamed = await client.messages
    .stream({ model: 'pro-1', max_tokens: 256, tools: [weatherTool], messages })
    .finalMessage();
  const streamedCall = streamed.content.find((block) => block.type === 'tool_use') as Anthropic.ToolUseBlock;
  assert.equal(streamedCall.input, { city: 'Paris' });
  assert.is(streamed.stop_reason, 'tool_use');
  messages.push({ role: 'assistant', content: first.content });
  messages.push({
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: call.id, content: '{"temp":21,"sky":"sunny"}' }],
  });
  const answer = await client.messages.create({ model: 'pro-1', max_tokens: 256, tools: [weatherTool], messages });
  assert.is(answer.stop_reason, 'end_turn');
  assert.match((answer.content[0] as Anthropic.TextBlock).text, 'get_weather returned {"temp":21,"sky":"sunny"}');
});

test('tools: tool_choice any forces a call, tool names it, none forbids it', async () => {
  const ask = (tool_choice: Anthropic.ToolChoice) =>
    client.messages.create({
      model: 'pro-1',
      max_tokens: 128,
      tools: [weatherTool],
      tool_choice,
      messages: [{ role: 'user', content: 'Hello there' }],
    });
  assert.is((await ask({ type: 'any' })).stop_reason, 'tool_use');
  const named = await ask({ type: 'tool', name: 'get_weather' });
  assert.is((named.content[0] as Anthropic.ToolUseBlock).name, 'get_weather');
  assert.is((await ask({ type: 'none' })).stop_reason, 'end_turn');
});

test('an image block (base64), and a system prompt as blocks', async () => {
  const message = await client.messages.create({
    model: 'pro-1',
    max_tokens: 256,
    system: [{ type: 'text', text: 'You describe images.' }],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png(32, 24).toString('base64') } },
          { type: 'text', text: 'What is in this image?' },
        ],
      },
    ],
  });
  assert.is(message.stop_reason, 'end_turn');
  assert.ok((message.content[0] as Anthropic.TextBlock).text.length > 0);
  const counted = await client.messages.countTokens({
    model: 'pro-1',
    system: [{ type: 'text', text: 'You describe images.' }],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png(32, 24).toString('base64') } },
          { type: 'text', text: 'What is in this image?' },
        ],
      },
    ],
  });
  // An image makes the request complex: each of its passes reads the prompt, so it bills more than one reading.
  assert.ok(counted.input_tokens > 765, 'the image counts its added tokens');
  assert.ok(counted.input_tokens < message.usage.input_tokens);
  assert.is((message as unknown as { svc: { depth: string } }).svc.depth, 'complex');
});

test('countTokens: the input tokens create bills', async () => {
  const params = {
    model: 'pro-1',
    system: 'Be brief.',
    messages: [{ role: 'user' as const, content: 'How many tokens is this prompt?' }],
  };
  const counted = await client.messages.countTokens(params);
  const made = await client.messages.create({ ...params, max_tokens: 64 });
  assert.ok(counted.input_tokens > 0);
  assert.is(counted.input_tokens, made.usage.input_tokens);
});

test('error classes: 400 BadRequestError, 401 AuthenticationError, 402 APIError, 404 NotFoundError', async () => {
  const raises = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (err) {
      return err as InstanceType<typeof Anthropic.APIError>;
    }
    throw new Error('expected an error');
  };
  const bad = await raises(client.messages.create({ model: 'pro-1', max_tokens: 0, messages: [] }));
  assert.instance(bad, Anthropic.BadRequestError);
  assert.is(bad.type, 'invalid_request_error');
  assert.ok(bad.requestID, 'the request id header reaches the SDK');
  assert.is((bad.error as { request_id?: string }).request_id, bad.requestID);
  const denied = await raises(
    anthropic('sk-not-a-real-token').messages.create({ model: 'pro-1', max_tokens: 8, messages: [] }),
  );
  assert.instance(denied, Anthropic.AuthenticationError);
  assert.is(denied.type, 'authentication_error');
  const broke = await server.account(0);
  const poor = await raises(
    anthropic(broke.token).messages.create({
      model: 'pro-1',
      max_tokens: 8,
      messages: [{ role: 'user', content: 'x' }],
    }),
  );
  assert.instance(poor, Anthropic.APIError);
  assert.is(poor.status, 402);
  assert.is(poor.type, 'billing_error');
  const unknown = await raises(
    client.messages.create({ model: 'claude-none', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] }),
  );
  assert.instance(unknown, Anthropic.NotFoundError);
});

test('error classes: 429 RateLimitError with retry-after', async () => {
  const limited = await server.account(1);
  await server.request('PATCH', `/v1/account/tokens/${limited.tokenId}`, {
    token: limited.session,
    body: { requests_per_minute: 1 },
  });
  const sdk = anthropic(limited.token);
  await sdk.messages.countTokens({ model: 'pro-1', messages: [{ role: 'user', content: 'x' }] });
  try {
    await sdk.messages.countTokens({ model: 'pro-1', messages: [{ role: 'user', content: 'x' }] });
    assert.unreachable();
  } catch (err) {
    assert.instance(err, Anthropic.RateLimitError);
    const limitedErr = err as InstanceType<typeof Anthropic.RateLimitError>;
    assert.is(limitedErr.type, 'rate_limit_error');
    assert.ok(Number(limitedErr.headers?.get('retry-after')) >= 1, 'retry-after in whole seconds');
  }
});

test.run();
