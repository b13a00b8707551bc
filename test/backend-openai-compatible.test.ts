import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChatBackend, ChatBackendEvent } from '../backends/chat-backend.js';
import { createChatBackend } from '../backends/create-chat-backend.js';
import { RetryableError, TerminalError } from '../backends/errors.js';
import {
  createOpenAICompatibleChatBackend,
  type OpenAICompatibleChatBackendOptions,
} from '../backends/openai-compatible/openai-compatible-chat-backend.js';
import { countPromptTokens, countTokens } from '../protocols/tokens.js';
import { ConfigError, loadConfig } from '../runtime/config.js';
import { chatBackendRequest, collect, within } from './contracts/backend.js';
import {
  answerJson,
  answerSse,
  chunk,
  finishSse,
  refusedUrl,
  sendEvent,
  startFakeUpstream,
  startSse,
  type FakeHandler,
  type FakeUpstream,
} from './fake-upstream.js';

const test = suite('openai-compatible backend: streaming relay and strict failures');

const API_KEY = 'sk-upstream-SECRET-0123456789';
const USAGE = { prompt_tokens: 11, completion_tokens: 3 };

const open: FakeUpstream[] = [];
test.after.each(async () => {
  await Promise.all(open.splice(0).map((upstream) => upstream.close()));
});

/** A fake upstream answering with `handler`, and a backend pointed at it. */
async function setup(
  handler: FakeHandler,
  options: Partial<OpenAICompatibleChatBackendOptions> = {},
): Promise<{ upstream: FakeUpstream; backend: ChatBackend }> {
  const upstream = await startFakeUpstream(handler);
  open.push(upstream);
  const backend = createOpenAICompatibleChatBackend({
    baseUrl: upstream.url,
    apiKey: API_KEY,
    model: 'upstream-model',
    firstByteTimeoutMs: 5000,
    idleTimeoutMs: 5000,
    ...options,
  });
  return { upstream, backend };
}

/** The error a stream fails with; fails the test when it ends without one. */
async function failure(stream: AsyncIterable<ChatBackendEvent>, seen: ChatBackendEvent[] = []): Promise<unknown> {
  try {
    for await (const event of stream) seen.push(event);
  } catch (err) {
    return err;
  }
  assert.unreachable(`the stream ended without an error after ${JSON.stringify(seen)}`);
  return undefined;
}

function assertFailure(err: unknown, type: typeof RetryableError | typeof TerminalError, kind: string): void {
  assert.instance(err, type, String(err));
  assert.is((err as RetryableError).kind, kind, String(err));
}

function assertNoKey(err: unknown): void {
  const error = err as Error;
  const texts = [
    String(err),
    error.message,
    JSON.stringify(err),
    String(error.cause),
    (error.cause as Error | undefined)?.message ?? '',
    error.stack ?? '',
  ];
  for (let cause = error.cause; cause instanceof Error; cause = cause.cause)
    texts.push(String(cause), cause.message, cause.stack ?? '');
  for (const text of texts) assert.not.ok(text.includes(API_KEY), `the key leaked in: ${text}`);
}

const text = (events: ChatBackendEvent[]) => events.map((e) => (e.type === 'delta' ? e.text : '')).join('');

test('deltas are relayed in order and usage is the upstream one', async () => {
  const { upstream, backend } = await setup((_, res) =>
    answerSse(res, [
      chunk({ content: 'Hel' }),
      chunk({ content: 'lo ' }),
      chunk({ content: 'there' }),
      chunk({ finishReason: 'stop' }),
      chunk({ noChoice: true, usage: USAGE }),
    ]),
  );
  const events = await collect(backend.stream(chatBackendRequest()));
  assert.equal(events, [
    { type: 'delta', text: 'Hel' },
    { type: 'delta', text: 'lo ' },
    { type: 'delta', text: 'there' },
    // The upstream's answer id comes along for the trace (gen_ai.response.id).
    {
      type: 'done',
      finishReason: 'stop',
      usage: { promptTokens: 11, completionTokens: 3 },
      responseId: 'chatcmpl-fake',
    },
  ]);
  const [sent] = upstream.requests;
  assert.is(sent?.method, 'POST');
  assert.is(sent?.path, '/v1/chat/completions');
  assert.is(sent?.headers.authorization, `Bearer ${API_KEY}`);
  assert.is(sent?.body.model, 'upstream-model');
  assert.is(sent?.body.stream, true);
  assert.equal(sent?.body.stream_options, { include_usage: true });
  assert.is(sent?.body.max_tokens, 64);
  assert.equal(sent?.body.messages, [{ role: 'user', content: 'Tell me about queues and streams' }]);
});

test('each delta reaches the caller before the upstream sends the next', async () => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const { backend } = await setup(async (_, res) => {
    startSse(res);
    sendEvent(res, chunk({ content: 'first' }));
    await released;
    finishSse(res, [chunk({ content: ' second', finishReason: 'stop' })]);
  });
  const iterator = backend.stream(chatBackendRequest())[Symbol.asyncIterator]();
  assert.equal((await within(iterator.next(), 2000, 'first delta')).value, { type: 'delta', text: 'first' });
  release();
  const rest: ChatBackendEvent[] = [];
  for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest.push(next.value);
  assert.equal(
    rest.map((e) => e.type),
    ['delta', 'done'],
  );
});

test('the request maps sampling, stop, response format, tools and tool choice to OpenAI fields', async () => {
  const { upstream, backend } = await setup((_, res) =>
    answerSse(res, [chunk({ content: '{}', finishReason: 'stop' })]),
  );
  const schema = { type: 'object', properties: { city: { type: 'string' } } };
  await collect(
    backend.stream(
      chatBackendRequest({
        messages: [
          { role: 'system', content: 'Be brief', name: null },
          { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{}' } }],
          },
          { role: 'tool', content: 'sunny', tool_call_id: 'call_1' },
        ],
        temperature: 0.3,
        stop: ['END'],
        responseFormat: { type: 'json_schema', schema },
        tools: [
          { name: 'weather', description: 'Looks up the weather', parameters: schema },
          { name: 'noop', description: null, parameters: null },
        ],
        toolChoice: { name: 'weather' },
      }),
    ),
  );
  const body = upstream.requests[0]?.body;
  assert.is(body.temperature, 0.3);
  assert.equal(body.stop, ['END']);
  assert.equal(body.response_format, { type: 'json_schema', json_schema: { name: 'response', schema } });
  assert.equal(body.tools, [
    { type: 'function', function: { name: 'weather', description: 'Looks up the weather', parameters: schema } },
    { type: 'function', function: { name: 'noop' } },
  ]);
  assert.equal(body.tool_choice, { type: 'function', function: { name: 'weather' } });
  assert.equal(body.messages[0], { role: 'system', content: 'Be brief' });
  assert.equal(body.messages[2].content, null);
  assert.is(body.messages[3].tool_call_id, 'call_1');
});

test('a plain request sends no optional fields and json_object maps as is', async () => {
  const { upstream, backend } = await setup((_, res) =>
    answerSse(res, [chunk({ content: '{}', finishReason: 'stop' })]),
  );
  await collect(
    backend.stream(
      chatBackendRequest({ responseFormat: { type: 'json_object', schema: null }, toolChoice: 'required' }),
    ),
  );
  const body = upstream.requests[0]?.body;
  for (const field of ['temperature', 'stop', 'tools', 'tool_choice']) assert.is(body[field], undefined, field);
  assert.equal(body.response_format, { type: 'json_object' });
});

test('parallel_tool_calls false is passed on with the tools; by default it is left out', async () => {
  const { upstream, backend } = await setup((_, res) =>
    answerSse(res, [chunk({ content: 'ok', finishReason: 'stop' })]),
  );
  const tools = [{ name: 'f', description: null, parameters: { type: 'object' } }];
  await collect(backend.stream(chatBackendRequest({ tools, parallelToolCalls: false })));
  await collect(backend.stream(chatBackendRequest({ tools })));
  assert.is(upstream.requests[0]?.body.parallel_tool_calls, false);
  assert.is(upstream.requests[1]?.body.parallel_tool_calls, undefined);
});

test('a non-streaming JSON answer becomes the same events', async () => {
  const { backend } = await setup((_, res) =>
    answerJson(res, 200, {
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Whole answer' }, finish_reason: 'length' }],
      usage: USAGE,
    }),
  );
  assert.equal(await collect(backend.stream(chatBackendRequest())), [
    { type: 'delta', text: 'Whole answer' },
    { type: 'done', finishReason: 'length', usage: { promptTokens: 11, completionTokens: 3 } },
  ]);
});

test('a non-streaming JSON answer with tool calls gives one fragment per call', async () => {
  const { backend } = await setup((_, res) =>
    answerJson(res, 200, {
      choices: [
        {
          message: {
            content: null,
            tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'lookup', arguments: '{"q":1}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: USAGE,
    }),
  );
  const events = await collect(backend.stream(chatBackendRequest()));
  assert.equal(events[0], { type: 'tool_call', index: 0, id: 'call_a', name: 'lookup', arguments: '{"q":1}' });
  assert.is(events[1]?.type === 'done' && events[1].finishReason, 'tool_calls');
});

test('tool-call fragments are relayed as they arrive', async () => {
  const { backend } = await setup((_, res) =>
    answerSse(res, [
      chunk({
        toolCalls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }],
      }),
      chunk({ toolCalls: [{ index: 0, function: { arguments: '{"city":' } }] }),
      chunk({ toolCalls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
      chunk({
        toolCalls: [{ index: 1, id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '{}' } }],
      }),
      chunk({ finishReason: 'tool_calls' }),
      chunk({ noChoice: true, usage: USAGE }),
    ]),
  );
  assert.equal(await collect(backend.stream(chatBackendRequest())), [
    { type: 'tool_call', index: 0, id: 'call_1', name: 'get_weather', arguments: '' },
    { type: 'tool_call', index: 0, arguments: '{"city":' },
    { type: 'tool_call', index: 0, arguments: '"Paris"}' },
    { type: 'tool_call', index: 1, id: 'call_2', name: 'get_time', arguments: '{}' },
    {
      type: 'done',
      finishReason: 'tool_calls',
      usage: { promptTokens: 11, completionTokens: 3 },
      responseId: 'chatcmpl-fake',
    },
  ]);
});

test('finish reasons map: function_call to tool_calls, content_filter to stop', async () => {
  for (const [upstreamReason, ours] of [
    ['function_call', 'tool_calls'],
    ['content_filter', 'stop'],
    ['length', 'length'],
  ] as const) {
    const { backend } = await setup((_, res) =>
      answerSse(res, [chunk({ content: 'x', finishReason: upstreamReason })]),
    );
    const events = await collect(backend.stream(chatBackendRequest()));
    assert.is(events.at(-1)?.type === 'done' && events.at(-1), events.at(-1));
    assert.is((events.at(-1) as { finishReason: string }).finishReason, ours, upstreamReason);
  }
});

test('without upstream usage, usage is counted by the shared rule however the text was split', async () => {
  const pieces = ['Hel', 'lo wor', 'ld', '! Straße', 'nbahn 12', '3 🚀 ', 'done.'];
  const { backend } = await setup((_, res) =>
    answerSse(res, [...pieces.map((content) => chunk({ content })), chunk({ finishReason: 'stop' })]),
  );
  const request = chatBackendRequest();
  const events = await collect(backend.stream(request));
  assert.is(text(events), pieces.join(''));
  assert.equal(events.at(-1), {
    type: 'done',
    finishReason: 'stop',
    usage: { promptTokens: countPromptTokens(request.messages), completionTokens: countTokens(pieces.join('')) },
    responseId: 'chatcmpl-fake',
  });
});

test('HTTP 500 is a RetryableError upstream_error', async () => {
  const { backend } = await setup((_, res) => answerJson(res, 500, { error: { message: 'engine crashed' } }));
  const err = await failure(backend.stream(chatBackendRequest()));
  assertFailure(err, RetryableError, 'upstream_error');
  assert.match((err as Error).message, /engine crashed/);
});

test('HTTP 503 and 429 are upstream_unavailable with the Retry-After delay', async () => {
  for (const status of [503, 429]) {
    const { backend } = await setup((_, res) =>
      answerJson(res, status, { error: { message: 'busy' } }, { 'retry-after': '2' }),
    );
    const err = await failure(backend.stream(chatBackendRequest()));
    assertFailure(err, RetryableError, 'upstream_unavailable');
    assert.is((err as RetryableError).retryAfterMs, 2000);
  }
  const { backend } = await setup((_, res) => answerJson(res, 503, { error: { message: 'busy' } }));
  assert.is(((await failure(backend.stream(chatBackendRequest()))) as RetryableError).retryAfterMs, null);
});

test('HTTP 400 is a TerminalError carrying the upstream message', async () => {
  const { backend } = await setup((_, res) =>
    answerJson(res, 400, { error: { message: 'max_tokens is too large', type: 'invalid_request_error' } }),
  );
  const err = await failure(backend.stream(chatBackendRequest()));
  assertFailure(err, TerminalError, 'upstream_error');
  assert.match((err as Error).message, /max_tokens is too large/);
});

test('a refused connection is upstream_unavailable', async () => {
  const backend = createOpenAICompatibleChatBackend({ baseUrl: await refusedUrl(), apiKey: API_KEY, model: 'm' });
  const err = await failure(backend.stream(chatBackendRequest()));
  assertFailure(err, RetryableError, 'upstream_unavailable');
  assertNoKey(err);
});

test('no response headers within the first-byte timeout is upstream_timeout', async () => {
  const { upstream, backend } = await setup(() => undefined, { firstByteTimeoutMs: 200 });
  const err = await within(failure(backend.stream(chatBackendRequest())), 3000, 'the timeout');
  assertFailure(err, RetryableError, 'upstream_timeout');
  assert.equal(await within(upstream.requests[0]!.closed, 2000, 'the upstream connection closing'), {
    finished: false,
  });
});

test('no response headers within the connect timeout is upstream_timeout', async () => {
  const { backend } = await setup(() => undefined, { connectTimeoutMs: 150, firstByteTimeoutMs: 10_000 });
  assertFailure(
    await within(failure(backend.stream(chatBackendRequest())), 3000, 'the timeout'),
    RetryableError,
    'upstream_timeout',
  );
});

test('headers without a first byte within the timeout is upstream_timeout', async () => {
  const { backend } = await setup((_, res) => startSse(res), { firstByteTimeoutMs: 200 });
  assertFailure(
    await within(failure(backend.stream(chatBackendRequest())), 3000, 'the timeout'),
    RetryableError,
    'upstream_timeout',
  );
});

test('a gap mid-stream longer than the idle timeout is upstream_timeout after the first deltas', async () => {
  const { backend } = await setup(
    (_, res) => {
      startSse(res);
      sendEvent(res, chunk({ content: 'partial' }));
    },
    { idleTimeoutMs: 150 },
  );
  const seen: ChatBackendEvent[] = [];
  assertFailure(
    await within(failure(backend.stream(chatBackendRequest()), seen), 3000, 'the idle timeout'),
    RetryableError,
    'upstream_timeout',
  );
  assert.equal(seen, [{ type: 'delta', text: 'partial' }]);
});

test('a consumer holding an event longer than the idle timeout is not an idle upstream', async () => {
  const sendNext: (() => void)[] = [];
  const { backend } = await setup(
    (_, res) => {
      startSse(res);
      sendEvent(res, chunk({ content: 'a' }));
      sendNext.push(() => sendEvent(res, chunk({ content: 'b' })));
      sendNext.push(() => finishSse(res, [chunk({ content: 'c', finishReason: 'stop' })]));
    },
    { idleTimeoutMs: 100 },
  );
  const iterator = backend.stream(chatBackendRequest())[Symbol.asyncIterator]();
  const events: (ChatBackendEvent | undefined)[] = [(await iterator.next()).value];
  sendNext.shift()!();
  events.push((await iterator.next()).value);
  await new Promise((resolve) => setTimeout(resolve, 250)); // the consumer is busy: backpressure, not upstream silence
  sendNext.shift()!();
  for (let next = await iterator.next(); !next.done; next = await iterator.next()) events.push(next.value);
  assert.equal(
    events.map((e) => e?.type),
    ['delta', 'delta', 'delta', 'done'],
  );
});

test('a data line that is not JSON is upstream_error', async () => {
  const { backend } = await setup((_, res) => answerSse(res, [chunk({ content: 'ok' }), 'this is {not json']));
  assertFailure(await failure(backend.stream(chatBackendRequest())), RetryableError, 'upstream_error');
});

test('a chunk without choices is upstream_error', async () => {
  const { backend } = await setup((_, res) => answerSse(res, [{ id: 'x', object: 'chat.completion.chunk' }]));
  assertFailure(await failure(backend.stream(chatBackendRequest())), RetryableError, 'upstream_error');
});

test('an error object mid-stream is upstream_error with its message', async () => {
  const { backend } = await setup((_, res) =>
    answerSse(res, [chunk({ content: 'ok' }), { error: { message: 'out of memory' } }]),
  );
  const err = await failure(backend.stream(chatBackendRequest()));
  assertFailure(err, RetryableError, 'upstream_error');
  assert.match((err as Error).message, /out of memory/);
});

test('a stream that ends without [DONE] or a finish_reason is upstream_error, never a silent finish', async () => {
  const { backend } = await setup((_, res) => {
    startSse(res);
    sendEvent(res, chunk({ content: 'cut' }));
    res.end();
  });
  assertFailure(await failure(backend.stream(chatBackendRequest())), RetryableError, 'upstream_error');
});

test('a socket destroyed mid-stream is upstream_error, never a silent finish', async () => {
  const { backend } = await setup(async (_, res) => {
    startSse(res);
    sendEvent(res, chunk({ content: 'half an ans' }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    res.socket?.destroy();
  });
  const seen: ChatBackendEvent[] = [];
  assertFailure(
    await within(failure(backend.stream(chatBackendRequest()), seen), 3000, 'the drop'),
    RetryableError,
    'upstream_error',
  );
  assert.equal(seen, [{ type: 'delta', text: 'half an ans' }]);
});

test('an upstream that keeps the response open after [DONE] still finishes at once', async () => {
  const { backend } = await setup((_, res) => {
    startSse(res);
    sendEvent(res, chunk({ content: 'x', finishReason: 'stop' }));
    sendEvent(res, '[DONE]');
  });
  const events = await within(collect(backend.stream(chatBackendRequest())), 2000, 'the answer');
  assert.is(events.at(-1)?.type, 'done');
});

test('a stream larger than the read buffer, read slowly, arrives whole and in order (the upstream socket pauses and resumes)', async () => {
  const pieces = Array.from({ length: 400 }, (_, i) => `piece-${i}-${'x'.repeat(600)} `);
  const { backend } = await setup((_, res) => {
    startSse(res);
    // About 300 KB at once: past the high-water mark while the consumer below is still on its first events.
    for (const content of pieces) sendEvent(res, chunk({ content }));
    finishSse(res, [chunk({ finishReason: 'stop', usage: USAGE })]);
  });
  const seen: string[] = [];
  for await (const event of backend.stream(chatBackendRequest())) {
    if (event.type === 'delta') seen.push(event.text);
    if (seen.length % 50 === 1) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.is(seen.join(''), pieces.join(''));
});

test('a response ending just after [DONE] leaves its connection for the next request', async () => {
  const { upstream, backend } = await setup((_, res) => {
    startSse(res);
    sendEvent(res, chunk({ content: 'x', finishReason: 'stop' }));
    sendEvent(res, '[DONE]');
    setTimeout(() => res.end(), 5);
  });
  for (let i = 0; i < 3; i++) {
    await collect(backend.stream(chatBackendRequest()));
    await upstream.requests[i]!.closed;
    await new Promise((resolve) => setTimeout(resolve, 20)); // the client reads the body's end in the background
  }
  assert.is(upstream.connections, 1);
});

test('aborting the signal cuts the upstream request, throws the reason and frees the slot', async () => {
  const { upstream, backend } = await setup(
    (request, res) => {
      startSse(res);
      sendEvent(res, chunk({ content: 'started' }));
      if (request.body.messages[0].content === 'second') finishSse(res, [chunk({ finishReason: 'stop' })]);
    },
    { concurrency: 1 },
  );
  const controller = new AbortController();
  const iterator = backend.stream(chatBackendRequest({ signal: controller.signal }))[Symbol.asyncIterator]();
  assert.is((await iterator.next()).value?.type, 'delta');
  const pending = iterator.next();
  const reason = new Error('client left');
  controller.abort(reason);
  const err = await within(
    pending.then(
      () => null,
      (e: unknown) => e,
    ),
    2000,
    'the aborted stream',
  );
  assert.is(err, reason);
  assert.equal(await within(upstream.requests[0]!.closed, 2000, 'the upstream seeing the close'), { finished: false });
  const second = await within(
    collect(backend.stream(chatBackendRequest({ messages: [{ role: 'user', content: 'second' }] }))),
    2000,
    'the next request',
  );
  assert.is(second.at(-1)?.type, 'done');
});

test('aborting while waiting for a slot leaves the queue without reaching the upstream', async () => {
  const { upstream, backend } = await setup((_, res) => startSse(res), { concurrency: 1 });
  const holder = new AbortController();
  const holding = failure(backend.stream(chatBackendRequest({ signal: holder.signal })));
  while (upstream.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  const waiter = new AbortController();
  const waiting = failure(backend.stream(chatBackendRequest({ signal: waiter.signal })));
  waiter.abort();
  assert.is(((await within(waiting, 2000, 'the queued abort')) as Error).name, 'AbortError');
  holder.abort();
  await within(holding, 2000, 'the holder');
  assert.is(upstream.requests.length, 1);
});

test('a full queue past the first-byte timeout is upstream_unavailable', async () => {
  const { upstream, backend } = await setup(
    (_, res) => {
      startSse(res);
      sendEvent(res, chunk({ content: 'holding the only slot' }));
    },
    { concurrency: 1, firstByteTimeoutMs: 150 },
  );
  const holder = new AbortController();
  const holding = backend.stream(chatBackendRequest({ signal: holder.signal }))[Symbol.asyncIterator]();
  assert.is((await within(holding.next(), 2000, 'the holder starting')).value?.type, 'delta');
  const waiting = failure(backend.stream(chatBackendRequest()));
  assertFailure(await within(waiting, 3000, 'the queued request'), RetryableError, 'upstream_unavailable');
  holder.abort();
  await holding.return?.();
  assert.is(upstream.requests.length, 1);
});

test('the concurrency limit holds: 5 parallel requests, never more than 2 at the upstream', async () => {
  const { upstream, backend } = await setup(
    async (_, res) => {
      startSse(res);
      await new Promise((resolve) => setTimeout(resolve, 20));
      finishSse(res, [chunk({ content: 'ok', finishReason: 'stop' })]);
    },
    { concurrency: 2 },
  );
  const results = await within(
    Promise.all(Array.from({ length: 5 }, () => collect(backend.stream(chatBackendRequest())))),
    5000,
    'five requests',
  );
  for (const events of results) assert.is(events.at(-1)?.type, 'done');
  assert.is(upstream.requests.length, 5);
  assert.is(upstream.maxInFlight, 2);
});

test('the API key is sent as Bearer but never appears in an error', async () => {
  const echoKey: FakeHandler = (request, res) =>
    answerJson(res, Number(request.body.messages[0].content), {
      error: { message: `Incorrect API key provided: ${API_KEY} (${String(request.headers.authorization)})` },
    });
  const { upstream, backend } = await setup(echoKey);
  for (const status of [401, 500, 503]) {
    const err = await failure(
      backend.stream(chatBackendRequest({ messages: [{ role: 'user', content: String(status) }] })),
    );
    assert.instance(err, status === 401 ? TerminalError : RetryableError);
    assert.match((err as Error).message, /Incorrect API key provided/);
    assertNoKey(err);
  }
  assert.is(upstream.requests[0]?.headers.authorization, `Bearer ${API_KEY}`);
  const stalled = await setup((_, res) => startSse(res), { firstByteTimeoutMs: 100 });
  assertNoKey(await failure(stalled.backend.stream(chatBackendRequest())));
  const dropped = await setup((_, res) => void res.socket?.destroy());
  const err = await failure(dropped.backend.stream(chatBackendRequest()));
  assertFailure(err, RetryableError, 'upstream_unavailable');
  assertNoKey(err);
});

test('without an API key no Authorization header is sent', async () => {
  const { upstream, backend } = await setup(
    (_, res) => answerSse(res, [chunk({ content: 'x', finishReason: 'stop' })]),
    { apiKey: null },
  );
  await collect(backend.stream(chatBackendRequest()));
  assert.is(upstream.requests[0]?.headers.authorization, undefined);
});

test('createChatBackend builds this backend from the SVC_UPSTREAM_* variables', async () => {
  const upstream = await startFakeUpstream((_, res) => answerSse(res, [chunk({ content: 'x', finishReason: 'stop' })]));
  open.push(upstream);
  const config = loadConfig({
    SVC_BACKEND: 'openai-compatible',
    SVC_UPSTREAM_BASE_URL: upstream.url,
    SVC_UPSTREAM_MODEL: 'served-model',
    SVC_UPSTREAM_API_KEY: API_KEY,
  });
  assert.is(config.SVC_UPSTREAM_CONCURRENCY, 64);
  assert.is(config.SVC_UPSTREAM_TIMEOUT_MS, 60_000);
  assert.is(config.SVC_UPSTREAM_IDLE_TIMEOUT_MS, 30_000);
  const backend = createChatBackend(config);
  assert.is(backend.name, 'openai-compatible');
  await collect(backend.stream(chatBackendRequest()));
  assert.is(upstream.requests[0]?.body.model, 'served-model');
  assert.is(upstream.requests[0]?.headers.authorization, `Bearer ${API_KEY}`);
  assert.is(createChatBackend(loadConfig({})).name, 'sim');
});

test('openai-compatible without SVC_UPSTREAM_MODEL stops the start, naming the variable', () => {
  for (const env of [{ SVC_UPSTREAM_BASE_URL: 'http://127.0.0.1:9/v1' }, {}]) {
    try {
      loadConfig({ SVC_BACKEND: 'openai-compatible', ...env });
      assert.unreachable('loadConfig accepted it');
    } catch (err) {
      assert.instance(err, ConfigError);
      assert.match((err as Error).message, /SVC_UPSTREAM_MODEL/);
    }
  }
  assert.throws(() => loadConfig({ SVC_UPSTREAM_IDLE_TIMEOUT_MS: '0' }), /SVC_UPSTREAM_IDLE_TIMEOUT_MS/);
});

test.run();
