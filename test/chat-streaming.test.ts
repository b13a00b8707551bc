import { connect } from 'node:net';
import OpenAI from 'openai';
import { suite } from 'uvu';
import { COMPLETION_MACHINE, type CompletionHandle } from '../actors/chat/completion-run.js';
import * as assert from 'uvu/assert';
import { chatBody, startServer, type TestAccount, type TestServer } from './harness.js';

const test = suite('chat completions: streaming over SSE');
let server: TestServer;
let account: TestAccount;

test.before(async () => {
  server = await startServer();
  account = await server.account(20);
});
test.after(() => server.close());

/** A harness chat body as SDK streaming params. */
function streamParams(body: Record<string, unknown>): OpenAI.ChatCompletionCreateParamsStreaming {
  return { ...body, stream: true } as unknown as OpenAI.ChatCompletionCreateParamsStreaming;
}

async function balanceMicros(): Promise<number> {
  const res = await server.request('GET', '/v1/account', { token: account.token });
  return Math.round(res.body.balance_usd * 1e6);
}

test('the SDK streams chunks, finish_reason stays null until the end, and usage arrives with include_usage', async () => {
  const client = server.openai(account.token);
  const stream = await client.chat.completions.create({
    model: 'pro-1',
    messages: [{ role: 'user', content: 'Stream this please' }],
    max_tokens: 40,
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = '';
  const finishes: (string | null)[] = [];
  let usage: OpenAI.CompletionUsage | undefined;
  let svc: { price_usd: number; status: string } | undefined;
  for await (const chunk of stream) {
    assert.is(chunk.object, 'chat.completion.chunk');
    for (const choice of chunk.choices) {
      text += choice.delta.content ?? '';
      finishes.push(choice.finish_reason);
    }
    if (chunk.usage) usage = chunk.usage;
    const extra = chunk as unknown as { svc?: { price_usd: number; status: string } };
    if (extra.svc) svc = extra.svc;
  }
  assert.ok(text.length > 0);
  assert.ok(
    finishes.slice(0, -1).every((f) => f === null),
    JSON.stringify(finishes),
  );
  assert.ok(['stop', 'length'].includes(finishes.at(-1)!));
  assert.ok(usage && usage.completion_tokens > 0);
  assert.is(svc!.price_usd, (usage.prompt_tokens * 12 + usage.completion_tokens * 48) / 1e6);
  assert.is(svc!.status, 'completed');
});

test('streamed text equals the non-streamed text for the same request', async () => {
  const client = server.openai(account.token);
  const body = { model: 'pro-1', messages: [{ role: 'user' as const, content: 'Same either way' }], max_tokens: 30 };
  const whole = await client.chat.completions.create(body);
  let text = '';
  for await (const chunk of await client.chat.completions.create({ ...body, stream: true }))
    text += chunk.choices[0]?.delta.content ?? '';
  assert.is(text, whole.choices[0]!.message.content);
});

test('the balance moves by exactly the streamed svc.price_usd', async () => {
  const before = await balanceMicros();
  let price = -1;
  for await (const chunk of await server
    .openai(account.token)
    .chat.completions.create(streamParams(chatBody('Exact stream charge')))) {
    const extra = chunk as unknown as { svc?: { price_usd: number } };
    if (extra.svc) price = Math.round(extra.svc.price_usd * 1e6);
  }
  assert.ok(price > 0);
  assert.is(before - (await balanceMicros()), price);
});

test('SSE framing is byte-exact: data lines, blank-line separators, [DONE] last', async () => {
  const res = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${account.token}`,
      'content-type': 'application/json',
      accept: 'application/json',
    },
    body: JSON.stringify(chatBody('Framing check', { stream: true, max_tokens: 5 })),
  });
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type')!, /^text\/event-stream/);
  const raw = await res.text();
  assert.ok(raw.endsWith('data: [DONE]\n\n'), JSON.stringify(raw.slice(-40)));
  const events = raw.split('\n\n');
  assert.is(events.pop(), '');
  for (const event of events) {
    assert.ok(event.startsWith('data: '), event);
    assert.not.ok(event.slice(6).includes('\n'), 'one line per event');
  }
  const chunks = events.slice(0, -1).map((e) => JSON.parse(e.slice(6)));
  assert.is(new Set(chunks.map((c) => c.id)).size, 1, 'one id for the whole stream');
  assert.is(chunks[0].choices[0].delta.role, 'assistant');
  assert.ok(chunks.at(-1).svc && chunks.at(-1).usage, 'final chunk carries usage and svc');
});

test('include_progress_text adds progress blocks naming the phases', async () => {
  const res = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.token}` },
    body: JSON.stringify(
      chatBody('Deep one', {
        stream: true,
        response_mode: 'complex',
        enable_judge: true,
        stream_options: { include_progress_text: true },
      }),
    ),
  });
  const chunks = (await res.text())
    .split('\n\n')
    .filter((e) => e.startsWith('data: {'))
    .map((e) => JSON.parse(e.slice(6)));
  const phases = chunks.filter((c) => c.progress).map((c) => c.progress.phase);
  assert.equal(phases, ['planning', 'answering', 'checking', 'judging']);
  for (const c of chunks.filter((c) => c.progress)) assert.type(c.progress.status_text, 'string');
});

test('tool calls stream as deltas in the OpenAI shape and the SDK reassembles them', async () => {
  const client = server.openai(account.token);
  const tools = [
    {
      type: 'function' as const,
      function: {
        name: 'get_weather',
        parameters: {
          type: 'object',
          properties: { city: { type: 'string' }, days: { type: 'integer' } },
          required: ['city', 'days'],
        },
      },
    },
  ];
  const stream = client.chat.completions.stream({
    model: 'pro-1',
    messages: [{ role: 'user', content: 'Paris weather' }],
    tools,
    tool_choice: 'required',
  });
  const final = await stream.finalChatCompletion();
  const call = final.choices[0]!.message.tool_calls![0]!;
  assert.is(final.choices[0]!.finish_reason, 'tool_calls');
  assert.is(call.type, 'function');
  assert.is((call as { function: { name: string } }).function.name, 'get_weather');
  assert.equal(JSON.parse((call as { function: { arguments: string } }).function.arguments), {
    city: 'Paris',
    days: 1,
  });
  const whole = await client.chat.completions.create({
    model: 'pro-1',
    messages: [{ role: 'user', content: 'Paris weather' }],
    tools,
    tool_choice: 'required',
  });
  assert.is(whole.choices[0]!.message.content, null);
  assert.is((whole.choices[0]!.message.tool_calls![0] as { function: { name: string } }).function.name, 'get_weather');
});

test('legacy functions answer with function_call', async () => {
  const res = await server.request('POST', '/v1/chat/completions', {
    token: account.token,
    body: chatBody('call lookup now', {
      functions: [
        { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
      ],
      function_call: { name: 'lookup' },
    }),
  });
  assert.is(res.status, 200);
  assert.is(res.body.choices[0].finish_reason, 'function_call');
  assert.is(res.body.choices[0].message.function_call.name, 'lookup');
  assert.equal(JSON.parse(res.body.choices[0].message.function_call.arguments), { q: 'call' });
});

test('a provider failure before any output is a plain 503, and the SDK raises it', async () => {
  const before = await balanceMicros();
  try {
    const stream = await server
      .openai(account.token)
      .chat.completions.create(streamParams(chatBody('x', { metadata: { sim: { fail: 'unavailable' } } })));
    for await (const _ of stream) void _;
    assert.unreachable();
  } catch (err) {
    assert.instance(err, OpenAI.APIError);
    assert.is((err as InstanceType<typeof OpenAI.APIError>).status, 503);
  }
  assert.is(await balanceMicros(), before);
});

test('aborting mid-stream stops the work and charges only what was processed', async () => {
  const before = await balanceMicros();
  const controller = new AbortController();
  const stream = await server
    .openai(account.token)
    .chat.completions.create(
      streamParams(chatBody('Slow and long', { max_tokens: 200, metadata: { sim: { tokens_per_s: 200 } } })),
      { signal: controller.signal },
    );
  let pieces = 0;
  let id = '';
  try {
    for await (const chunk of stream) {
      id = chunk.id;
      pieces++;
      if (pieces === 3) controller.abort();
    }
  } catch (err) {
    assert.instance(err, OpenAI.APIUserAbortError);
  }
  // The server sees the disconnect, cancels the run and settles: wait for the run's settled outcome.
  await server.app.deps.actors.get<CompletionHandle>(id, account.id, COMPLETION_MACHINE)!.done;
  const status = await server.request('GET', `/v1/chat/completions/${id}/live-input`, { token: account.token });
  assert.is(status.body.state, 'cancelled');
  const charged = before - (await balanceMicros());
  const usage = await server.request('GET', '/v1/account/usage?limit=1', { token: account.token });
  const entry = usage.body.recent[0];
  assert.ok(entry.description.includes('cancelled'));
  assert.ok(
    entry.completion_tokens > 0 && entry.completion_tokens < 200,
    `completion tokens ${entry.completion_tokens}`,
  );
  assert.is(charged, entry.prompt_tokens * 12 + entry.completion_tokens * 48);
});

test('a reader that stops reading holds the backend back (bounded memory), then gets everything', async () => {
  const reply = 'w '.repeat(200_000); // 200k chunks, ~45 MB of SSE: far more than socket buffers hold
  // 8 choices × 16,384 tokens (the model's output cap): ~30 MB of SSE.
  const body = JSON.stringify(
    chatBody('backpressure', { stream: true, n: 8, max_tokens: 16_384, metadata: { sim: { reply } } }),
  );
  const port = Number(new URL(server.url).port);
  const socket = connect(port, '127.0.0.1');
  socket.pause();
  socket.write(
    `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${account.token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  await new Promise((r) => setTimeout(r, 400));
  const running = server.app.deps.actors.list(COMPLETION_MACHINE).map((live) => live.handle as CompletionHandle);
  const entry = running.find((handle) => handle.state().active);
  assert.ok(entry, 'the run is still active while the reader is paused');
  const produced = entry.partial()[0]!.length;
  assert.ok(produced < 16_384, `produced ${produced} characters of choice 0 while unread`);
  let received = 0;
  let tail = '';
  const finished = new Promise<void>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      tail = (tail + chunk.toString('latin1')).slice(-64);
      if (tail.includes('data: [DONE]')) resolve();
    });
  });
  socket.resume();
  await finished;
  socket.destroy();
  assert.ok(received > reply.length, 'every chunk arrived');
});

test.run();
