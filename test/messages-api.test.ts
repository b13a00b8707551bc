import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chatPriceMicros } from '../protocols/pricing.js';
import { AnthropicErrorSchema, MessageObjectSchema, MessagesStreamEventSchema } from '../protocols/messages.js';
import { chunk, sendEvent, startFakeUpstream, startSse, type FakeUpstream } from './fake-upstream.js';
import { startServer, type TestAccount, type TestServer } from './harness.js';

const test = suite('messages API on the wire: headers, bad input in Anthropic envelope, billing, holds, stream events');
let server: TestServer;
let account: TestAccount;

test.before(async () => {
  server = await startServer({ SVC_CHAT_CACHE_TTL_S: '0' });
  account = await server.account(5);
});
test.after(() => server.close());

const VERSION = { 'anthropic-version': '2023-06-01' };
const body = (extra: Record<string, unknown> = {}) => ({
  model: 'pro-1',
  max_tokens: 32,
  messages: [{ role: 'user', content: 'Hello there' }],
  ...extra,
});
const post = (payload: unknown, headers: Record<string, string> = { ...VERSION, 'x-api-key': account.token }) =>
  server.request('POST', '/v1/messages', { body: payload, headers });
const micros = (usd: number) => Math.round(usd * 1e6);

/** An error answer in Anthropic's envelope, with our request id in the body equal to X-Request-ID. */
function assertAnthropicError(
  res: { status: number; headers: Headers; body: any },
  status: number,
  type: string,
  what: string,
): void {
  assert.is(res.status, status, `${what}: ${JSON.stringify(res.body)}`);
  assert.ok(AnthropicErrorSchema.safeParse(res.body).success, `${what}: envelope ${JSON.stringify(res.body)}`);
  assert.is(res.body.error.type, type, what);
  assert.is(res.body.request_id, res.headers.get('x-request-id'), `${what}: request_id`);
  assert.is(res.headers.get('request-id'), res.headers.get('x-request-id'), `${what}: request-id header`);
}

test('the token as x-api-key or as Authorization: Bearer; none or a wrong one is authentication_error', async () => {
  assert.is((await post(body())).status, 200);
  assert.is((await post(body(), { ...VERSION, authorization: `Bearer ${account.token}` })).status, 200);
  const none = await post(body(), { ...VERSION });
  assertAnthropicError(none, 401, 'authentication_error', 'no credential');
  assert.match(none.body.error.message, 'x-api-key');
  assertAnthropicError(await post(body(), { ...VERSION, 'x-api-key': 'sk-wrong' }), 401, 'authentication_error', 'bad');
});

test('anthropic-version is required, and must be a dated version', async () => {
  const missing = await post(body(), { 'x-api-key': account.token });
  assertAnthropicError(missing, 400, 'invalid_request_error', 'no version');
  assert.match(missing.body.error.message, 'anthropic-version');
  assertAnthropicError(
    await post(body(), { 'x-api-key': account.token, 'anthropic-version': 'latest' }),
    400,
    'invalid_request_error',
    'undated version',
  );
  const counted = await server.request('POST', '/v1/messages/count_tokens', {
    body: { model: 'pro-1', messages: [{ role: 'user', content: 'x' }] },
    headers: { 'x-api-key': account.token },
  });
  assertAnthropicError(counted, 400, 'invalid_request_error', 'count_tokens without version');
});

test('bad inputs are 400 invalid_request_error in Anthropic envelope, never 422 or 500', async () => {
  const cases: [string, unknown][] = [
    ['max_tokens missing', { model: 'pro-1', messages: [{ role: 'user', content: 'x' }] }],
    ['max_tokens zero', body({ max_tokens: 0 })],
    ['no messages', body({ messages: [] })],
    ['system role in messages', body({ messages: [{ role: 'system', content: 'x' }] })],
    ['unknown block type', body({ messages: [{ role: 'user', content: [{ type: 'video', url: 'x' }] }] })],
    ['image without source', body({ messages: [{ role: 'user', content: [{ type: 'image' }] }] })],
    [
      'image of an unknown media type',
      body({
        messages: [
          {
            role: 'user',
            content: [{ type: 'image', source: { type: 'base64', media_type: 'image/bmp', data: 'AA' } }],
          },
        ],
      }),
    ],
    ['temperature above 1', body({ temperature: 1.5 })],
    ['stop_sequences not strings', body({ stop_sequences: [1] })],
    ['tool without input_schema', body({ tools: [{ name: 'f' }] })],
    ['bad tool name', body({ tools: [{ name: 'no spaces allowed', input_schema: { type: 'object' } }] })],
    ['tool_choice unknown', body({ tool_choice: { type: 'sometimes' } })],
    ['tool_choice tool without name', body({ tool_choice: { type: 'tool' } })],
    [
      'tool_result in an assistant turn',
      body({
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'r' }] },
        ],
      }),
    ],
    [
      'tool_use in a user turn',
      body({ messages: [{ role: 'user', content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }] }] }),
    ],
    [
      'document from a url',
      body({
        messages: [
          { role: 'user', content: [{ type: 'document', source: { type: 'url', url: 'https://e.com/a.pdf' } }] },
        ],
      }),
    ],
    ['metadata not an object', body({ metadata: 'me' })],
    ['stream not a boolean', body({ stream: 'yes' })],
  ];
  for (const [what, payload] of cases) assertAnthropicError(await post(payload), 400, 'invalid_request_error', what);
  const notJson = await server.request('POST', '/v1/messages', {
    raw: '{"model":',
    headers: { ...VERSION, 'x-api-key': account.token, 'content-type': 'application/json' },
  });
  assertAnthropicError(notJson, 400, 'invalid_request_error', 'not JSON');
  assertAnthropicError(await post(body({ model: 'nope' })), 404, 'not_found_error', 'unknown model');
});

test('a message is billed and charged exactly as chat: its usage at the chat tariff, one ledger charge, no hold left', async () => {
  const payer = await server.account(1);
  const res = await post(body({ max_tokens: 48 }), { ...VERSION, 'x-api-key': payer.token });
  assert.is(res.status, 200);
  assert.ok(MessageObjectSchema.safeParse(res.body).success, JSON.stringify(res.body));
  const expected = chatPriceMicros({
    promptTokens: res.body.usage.input_tokens,
    completionTokens: res.body.usage.output_tokens,
  });
  assert.is(micros(res.body.svc.price_usd), expected);
  assert.is(micros(Number(res.headers.get('x-svc-price-usd'))), expected);
  const state = (await server.request('GET', '/v1/account', { token: payer.token })).body;
  assert.is(micros(state.balance_usd), 1_000_000 - expected);
  assert.is(state.held_usd, 0);
  const usage = await server.request('GET', '/v1/account/usage', { token: payer.token });
  const charges = usage.body.recent.filter((entry: { type: string }) => entry.type === 'charge');
  assert.is(charges.length, 1);
  assert.is(micros(-charges[0].amount_usd), expected);
});

test('concurrent messages never overspend: the holds refuse what the balance cannot cover (402 billing_error)', async () => {
  // Each request holds its worst case (max_tokens 4000 output at 48 USD/1M, about 0.19 USD): 0.5 USD covers two.
  const payer = await server.account(0.5);
  const results = await Promise.all(
    Array.from({ length: 8 }, () =>
      post(body({ max_tokens: 4000, metadata: { sim: { ttft_ms: 50 } } }), { ...VERSION, 'x-api-key': payer.token }),
    ),
  );
  const ok = results.filter((res) => res.status === 200);
  const refused = results.filter((res) => res.status === 402);
  assert.is(ok.length + refused.length, 8, JSON.stringify(results.map((res) => res.status)));
  assert.ok(ok.length >= 1 && refused.length >= 1, `ok ${ok.length}, refused ${refused.length}`);
  for (const res of refused) assertAnthropicError(res, 402, 'billing_error', 'unpayable');
  const state = (await server.request('GET', '/v1/account', { token: payer.token })).body;
  const spent = ok.reduce((sum, res) => sum + micros(res.body.svc.price_usd), 0);
  assert.is(micros(state.balance_usd), 500_000 - spent);
  assert.ok(state.balance_usd >= 0);
  assert.is(state.held_usd, 0);
});

/** The events of an SSE body: each `event:` name with its parsed `data:`. */
function eventsOf(text: string): { event: string; data: any }[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim())
    .map((frame) => {
      const event = /^event: (.*)$/m.exec(frame)?.[1] ?? '';
      const data = /^data: (.*)$/m.exec(frame)?.[1] ?? 'null';
      return { event, data: JSON.parse(data) };
    });
}

test('a streamed tool call: every event valid, named as its type, blocks indexed, input_json_delta, stop tool_use', async () => {
  const res = await fetch(`${server.url}/v1/messages`, {
    method: 'POST',
    headers: { ...VERSION, 'x-api-key': account.token, 'content-type': 'application/json' },
    body: JSON.stringify(
      body({
        stream: true,
        max_tokens: 200,
        tools: [{ name: 'get_time', input_schema: { type: 'object', properties: { zone: { type: 'string' } } } }],
        messages: [{ role: 'user', content: 'What time is it in Tokyo? Use get_time.' }],
      }),
    ),
  });
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', 'text/event-stream');
  const events = eventsOf(await res.text());
  for (const { event, data } of events) {
    assert.is(event, data.type);
    assert.ok(MessagesStreamEventSchema.safeParse(data).success, JSON.stringify(data));
  }
  assert.equal(
    events.map((e) => e.event).filter((name) => name !== 'content_block_delta' && name !== 'ping'),
    ['message_start', 'content_block_start', 'content_block_stop', 'message_delta', 'message_stop'],
  );
  const start = events.find((e) => e.event === 'content_block_start')!.data;
  assert.is(start.content_block.type, 'tool_use');
  assert.is(start.content_block.name, 'get_time');
  const json = events
    .filter((e) => e.event === 'content_block_delta')
    .map((e) => e.data.delta.partial_json as string)
    .join('');
  assert.equal(JSON.parse(json), { zone: 'Tokyo' });
  const delta = events.find((e) => e.event === 'message_delta')!.data;
  assert.is(delta.delta.stop_reason, 'tool_use');
  assert.ok(delta.svc.price_usd > 0);
});

test('count_tokens counts what a one-pass message bills as input', async () => {
  const prompt = { model: 'pro-1', system: 'Be brief.', messages: [{ role: 'user', content: 'Count me, please' }] };
  const counted = await server.request('POST', '/v1/messages/count_tokens', {
    body: prompt,
    headers: { ...VERSION, 'x-api-key': account.token },
  });
  assert.is(counted.status, 200);
  assert.equal(Object.keys(counted.body), ['input_tokens']);
  const made = await post({ ...prompt, max_tokens: 16 });
  assert.is(counted.body.input_tokens, made.body.usage.input_tokens);
});

test('the routes are in the OpenAPI document with their own error envelope and x-api-key', async () => {
  const doc = (await server.request('GET', '/v1/openapi.json')).body;
  for (const path of ['/v1/messages', '/v1/messages/count_tokens']) {
    const op = doc.paths[path].post;
    assert.ok(op, path);
    assert.equal(op.security, [{ apiToken: [] }, { anthropicApiKey: [] }]);
    assert.is(op.parameters[0].name, 'anthropic-version');
    assert.ok(JSON.stringify(op.responses.default).includes('overloaded_error'));
    assert.is(op.responses['422'], undefined);
  }
  assert.is(doc.components.securitySchemes.anthropicApiKey.name, 'x-api-key');
});

test('an upstream failing mid-stream ends the stream with an error event, never a truncated success; nothing charged', async () => {
  let upstream: FakeUpstream | undefined;
  let failing: TestServer | undefined;
  try {
    upstream = await startFakeUpstream((_request, res) => {
      startSse(res);
      sendEvent(res, chunk({ content: 'Half an ' }));
      sendEvent(res, chunk({ content: 'answer' }));
      setTimeout(() => res.destroy(), 20);
    });
    failing = await startServer({
      SVC_BACKEND: 'openai-compatible',
      SVC_UPSTREAM_BASE_URL: upstream.url,
      SVC_UPSTREAM_API_KEY: 'sk-upstream-key',
      SVC_UPSTREAM_MODEL: 'm',
      SVC_UPSTREAM_TIMEOUT_MS: '300',
    });
    const payer = await failing.account(1);
    const res = await fetch(`${failing.url}/v1/messages`, {
      method: 'POST',
      headers: { ...VERSION, 'x-api-key': payer.token, 'content-type': 'application/json' },
      body: JSON.stringify(body({ stream: true })),
    });
    assert.is(res.status, 200);
    const events = eventsOf(await res.text());
    const names = events.map((e) => e.event);
    assert.is(names.at(-1), 'error');
    assert.not.ok(names.includes('message_stop'));
    const error = events.at(-1)!.data;
    assert.ok(AnthropicErrorSchema.safeParse(error).success, JSON.stringify(error));
    assert.is(error.error.type, 'api_error');
    assert.is(error.request_id, res.headers.get('x-request-id'));
    const state = (await failing.request('GET', '/v1/account', { token: payer.token })).body;
    assert.is(state.balance_usd, 1);
    assert.is(state.held_usd, 0);
  } finally {
    await failing?.close();
    await upstream?.close();
  }
});

test.run();
