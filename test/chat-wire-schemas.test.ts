import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { z } from 'zod';
import {
  CancelResultSchema,
  LiveInputAckSchema,
  LiveInputStatusSchema,
  SessionRunAckSchema,
} from '../protocols/chat-live.js';
import {
  ChatCompletionChunkSchema,
  ChatCompletionSchema,
  FinalChunkSchema,
  StreamErrorEventSchema,
} from '../protocols/chat-response.js';
import {
  SessionDeletedSchema,
  SessionEventSchema,
  SessionEventsPageSchema,
  SessionListSchema,
  SessionLiveInputAckSchema,
  SessionObjectSchema,
  SessionResultSchema,
  WorkbookObjectSchema,
} from '../protocols/chat-session.js';
import { stateOf, type SessionSnapshot } from '../actors/sessions/session-record.js';
import { SimulatedClock } from '../runtime/clock.js';
import { chatBody, startServer, type TestAccount, type TestServer } from './harness.js';
import { chunk, sendEvent, startFakeUpstream, startSse, type FakeUpstream } from './fake-upstream.js';

const test = suite(
  'chat wire: real responses match the outbound zod schemas (chat.completion, chunks, sessions, events, workbook)',
);
let server: TestServer;
let account: TestAccount;
const clock = new SimulatedClock();

test.before(async () => {
  server = await startServer({ SVC_SESSION_APPROVAL_TTL_S: '60' }, { clock });
  account = await server.account(20);
});
test.after(() => server.close());

/** Parses `value` with `schema`, failing the test with zod's issues (strict schemas: no extra fields either). */
function valid<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success)
    assert.unreachable(
      `${what} does not match its schema: ${JSON.stringify(result.error.issues)}\n${JSON.stringify(value)}`,
    );
  return result.data as z.output<S>;
}

const api = (method: string, path: string, body?: unknown) =>
  server.request(method, path, { token: account.token, body });

/** The `data:` payloads of an SSE text, [DONE] left out. */
const dataEvents = (text: string): unknown[] =>
  text
    .split('\n\n')
    .flatMap((event) => event.split('\n').filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]'))
    .map((line) => JSON.parse(line.slice(6)) as unknown);

async function streamChunks(body: Record<string, unknown>): Promise<unknown[]> {
  const res = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.token}` },
    body: JSON.stringify({ ...body, stream: true }),
  });
  assert.is(res.status, 200);
  return dataEvents(await res.text());
}

function validStream(chunks: unknown[], what: string) {
  assert.ok(chunks.length >= 2, what);
  chunks.forEach((c, i) => valid(ChatCompletionChunkSchema, c, `${what} chunk ${i}`));
  return valid(FinalChunkSchema, chunks.at(-1), `${what} final chunk`);
}

const tools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];
const functions = [
  { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
];

test('chat.completion: plain, n=2, tool calls and legacy function_call', async () => {
  for (const [what, body] of [
    ['plain', chatBody('Wire check')],
    ['n=2', chatBody('Two of them', { n: 2 })],
    ['tools', chatBody('Paris weather', { tools, tool_choice: 'required' })],
    ['functions', chatBody('call lookup now', { functions, function_call: { name: 'lookup' } })],
    ['complex', chatBody('Deep wire', { response_mode: 'complex', enable_judge: true })],
  ] as const) {
    const res = await api('POST', '/v1/chat/completions', body);
    assert.is(res.status, 200, what);
    valid(ChatCompletionSchema, res.body, what);
  }
});

test('the openai SDK parses what the schemas accept, plain and streamed', async () => {
  const client = server.openai(account.token);
  const completion = await client.chat.completions.create({
    model: 'pro-1',
    messages: [{ role: 'user', content: 'SDK wire' }],
    max_tokens: 20,
  });
  valid(ChatCompletionSchema, completion, 'SDK completion');
  const stream = await client.chat.completions.create({
    model: 'pro-1',
    messages: [{ role: 'user', content: 'SDK stream wire' }],
    max_tokens: 20,
    stream: true,
    stream_options: { include_usage: true },
  });
  const chunks: unknown[] = [];
  for await (const c of stream) chunks.push(c);
  validStream(chunks, 'SDK stream');
  const final = await client.chat.completions
    .stream({
      model: 'pro-1',
      messages: [{ role: 'user', content: 'Paris weather' }],
      tools: tools as never,
      tool_choice: 'required',
    })
    .finalChatCompletion();
  assert.is(final.choices[0]!.finish_reason, 'tool_calls');
});

test('chat.completion.chunk: usage nulls, progress blocks, tool-call and function_call deltas, the final chunk', async () => {
  const deep = await streamChunks(
    chatBody('Deep stream', {
      response_mode: 'complex',
      enable_judge: true,
      n: 2,
      stream_options: { include_usage: true, include_progress_text: true },
    }),
  );
  validStream(deep, 'deep');
  assert.ok(
    deep.some((c) => (c as { progress?: unknown }).progress),
    'progress chunks present',
  );
  validStream(await streamChunks(chatBody('Paris weather', { tools, tool_choice: 'required' })), 'tool calls');
  validStream(
    await streamChunks(chatBody('call lookup now', { functions, function_call: { name: 'lookup' } })),
    'legacy functions',
  );
  // The same deterministic request again: answered from the cache.
  const cached = validStream(
    await streamChunks(chatBody('Deep stream', { response_mode: 'complex', enable_judge: true, n: 2 })),
    'cached',
  );
  assert.is(cached.svc.cached, true);
});

test('live input, status and cancel answers; a cancelled stream ends with svc.status cancelled', async () => {
  const res = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.token}` },
    body: JSON.stringify(
      chatBody('A slow one', {
        stream: true,
        max_tokens: 400,
        response_mode: 'complex',
        metadata: { sim: { tokens_per_s: 100 } },
        stream_options: { include_progress_text: true },
      }),
    ),
  });
  const id = res.headers.get('x-completion-id')!;
  const rest = res.text();
  const sent = await api('POST', `/v1/chat/completions/${id}/live-input`, { content: 'Also Rome', question_id: 'q1' });
  valid(LiveInputAckSchema, sent.body, 'live input ack');
  valid(LiveInputStatusSchema, (await api('GET', `/v1/chat/completions/${id}/live-input`)).body, 'live input status');
  valid(
    CancelResultSchema,
    (await api('POST', `/v1/chat/completions/${id}/cancel`, { reason: 'enough' })).body,
    'cancel',
  );
  const final = validStream(dataEvents(await rest), 'cancelled stream');
  assert.is(final.svc.status, 'cancelled');
  assert.is(final.svc.cancel_reason, 'enough');
  valid(LiveInputStatusSchema, (await api('GET', `/v1/chat/completions/${id}/live-input`)).body, 'finished status');
});

/** The session once it is in one of `states` (or has ended), as GET shows it. */
async function settled(id: string, states: string[]): Promise<unknown> {
  await server.app.deps.host.waitFor(id, (snapshot) =>
    states.includes(stateOf(snapshot as unknown as SessionSnapshot).state),
  );
  return (await api('GET', `/v1/chat/sessions/${id}`)).body;
}

const sessionBody = (content: string, extra: Record<string, unknown> = {}) =>
  chatBody(content, { max_tokens: 40, ...extra });

test('sessions: objects, acks, result, workbook, deletion, and every event type in events-page and SSE', async () => {
  const types = new Set<string>();
  const ids: string[] = [];
  const create = async (body: Record<string, unknown>) => {
    const created = await api('POST', '/v1/chat/sessions', body);
    assert.is(created.status, 201);
    ids.push(valid(SessionObjectSchema, created.body, 'created session').id);
    return created.body as { id: string; completion_id: string };
  };

  // Clarified through the session route, judged, completed, acknowledged.
  const asking = await create(
    sessionBody('What is the weather?', { enable_judge: true, metadata: { sim: { clarify: 'Which city?' } } }),
  );
  const waiting = valid(SessionObjectSchema, await settled(asking.id, ['awaiting_user']), 'awaiting_user session');
  valid(
    SessionLiveInputAckSchema,
    (
      await api('POST', `/v1/chat/sessions/${asking.id}/live-input`, {
        content: 'Paris',
        question_id: waiting.question!.id,
      })
    ).body,
    'session live input',
  );
  await settled(asking.id, ['completed']);
  valid(SessionResultSchema, (await api('GET', `/v1/chat/sessions/${asking.id}/result`)).body, 'result');
  valid(WorkbookObjectSchema, (await api('GET', `/v1/chat/sessions/${asking.id}/workbook`)).body, 'workbook');
  valid(SessionObjectSchema, (await api('POST', `/v1/chat/sessions/${asking.id}/acknowledge`)).body, 'acknowledged');

  // Clarified through the completion route (the session run ack).
  const viaCompletion = await create(sessionBody('Weather again?', { metadata: { sim: { clarify: 'Which town?' } } }));
  await settled(viaCompletion.id, ['awaiting_user']);
  valid(
    SessionRunAckSchema,
    (await api('POST', `/v1/chat/completions/${viaCompletion.completion_id}/live-input`, { content: 'Lyon' })).body,
    'session run ack',
  );
  await settled(viaCompletion.id, ['completed']);

  // Approved; cancelled while parked; expired on the (simulated) clock; failed by the backend.
  const approved = await create(sessionBody('Approve me', { require_approval: true }));
  valid(SessionObjectSchema, (await api('POST', `/v1/chat/sessions/${approved.id}/approve`)).body, 'approved');
  await settled(approved.id, ['completed']);
  const cancelled = await create(sessionBody('Cancel me', { require_approval: true }));
  valid(
    SessionObjectSchema,
    (await api('POST', `/v1/chat/sessions/${cancelled.id}/cancel`, { reason: 'no' })).body,
    'cancelled',
  );
  const expiring = await create(sessionBody('Let me expire', { require_approval: true }));
  clock.advance(60_000);
  await settled(expiring.id, ['expired']);
  const failing = await create(sessionBody('Fail me', { metadata: { sim: { fail: 'error' } } }));
  valid(SessionObjectSchema, await settled(failing.id, ['failed']), 'failed session');

  valid(SessionListSchema, (await api('GET', '/v1/chat/sessions?limit=100')).body, 'list');
  for (const id of ids) {
    const page = valid(
      SessionEventsPageSchema,
      (await api('GET', `/v1/chat/sessions/${id}/events-page?limit=1000`)).body,
      `events of ${id}`,
    );
    for (const event of page.events) types.add(event.type);
    // The SSE follow renders the same events (the run has ended, so the stream ends too).
    const res = await fetch(`${server.url}/v1/chat/sessions/${id}/events?after=-1`, {
      headers: { authorization: `Bearer ${account.token}` },
    });
    const streamed = dataEvents(await res.text()).map((e) => valid(SessionEventSchema, e, `SSE event of ${id}`));
    assert.equal(streamed, page.events);
  }
  const every = [
    'created',
    'awaiting_approval',
    'approved',
    'phase',
    'awaiting_user',
    'live_input',
    'answer',
    'completed',
    'cancelled',
    'failed',
    'expired',
    'acknowledged',
  ];
  assert.equal(
    every.filter((type) => !types.has(type)),
    [],
    'every event type was seen',
  );
  valid(SessionDeletedSchema, (await api('DELETE', `/v1/chat/sessions/${approved.id}`)).body, 'deleted');
});

test('an upstream failure after the stream opened ends it with the error event', async () => {
  let upstream: FakeUpstream | undefined;
  let dropping: TestServer | undefined;
  try {
    upstream = await startFakeUpstream((_request, res) => {
      startSse(res);
      sendEvent(res, chunk({ content: 'Half an ' }));
      res.end();
    });
    dropping = await startServer({
      SVC_BACKEND: 'openai-compatible',
      SVC_UPSTREAM_BASE_URL: upstream.url,
      SVC_UPSTREAM_API_KEY: 'sk-x',
      SVC_UPSTREAM_MODEL: 'upstream-model',
      SVC_CHAT_CACHE_TTL_S: '0',
    });
    const who = await dropping.account(5);
    const res = await fetch(`${dropping.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${who.token}` },
      body: JSON.stringify(chatBody('drop', { stream: true })),
    });
    assert.is(res.status, 200);
    const events = dataEvents(await res.text());
    events.slice(0, -1).forEach((c, i) => valid(ChatCompletionChunkSchema, c, `chunk ${i}`));
    const error = valid(StreamErrorEventSchema, events.at(-1), 'error event');
    assert.is(error.error.code, 'upstream_error');
  } finally {
    await dropping?.close();
    await upstream?.close();
  }
});

test.run();
