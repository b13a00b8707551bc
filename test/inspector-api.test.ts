import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SseDecoder } from '../protocols/sse-decoder.js';
import { ADMIN_KEY, startServer, type TestAccount, type TestServer } from './harness.js';

const test = suite('inspector: the /admin/v1/actors inspection API');
let server: TestServer;
let disabled: TestServer;
let user: TestAccount;

const admin = (path: string) => server.request('GET', path, { token: ADMIN_KEY });
const body = (content: string, extra: Record<string, unknown> = {}) => ({
  model: 'pro-1',
  messages: [{ role: 'user', content }],
  max_tokens: 30,
  ...extra,
});

async function parkedSession(): Promise<string> {
  const created = await server.request('POST', '/v1/chat/sessions', {
    token: user.token,
    body: body('Inspect me', { require_approval: true }),
  });
  assert.is(created.status, 201);
  assert.is(created.body.state, 'awaiting_approval');
  return created.body.id as string;
}

async function waitDone(id: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const res = await server.request('GET', `/v1/chat/sessions/${id}`, { token: user.token });
    if (['completed', 'failed', 'cancelled'].includes(res.body.state)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`session ${id} did not finish`);
}

test.before(async () => {
  server = await startServer();
  disabled = await startServer({ SVC_ADMIN_KEY: '' });
  user = await server.account(5);
});
test.after(async () => {
  await server.close();
  await disabled.close();
});

test('the list shows a parked session with its machine, state and account, and filters narrow it', async () => {
  const id = await parkedSession();
  const all = await admin('/admin/v1/actors?machine=chat-session');
  assert.is(all.status, 200);
  const row = all.body.data.find((actor: { id: string }) => actor.id === id);
  assert.ok(row, 'the session is listed');
  assert.equal(row.state, ['awaiting_approval']);
  assert.is(row.owner_id, user.id);
  assert.is(row.durable, true);
  const byState = await admin(`/admin/v1/actors?state=awaiting_approval&owner=${user.id}&q=${id.slice(5, 15)}`);
  assert.equal(
    byState.body.data.map((actor: { id: string }) => actor.id),
    [id],
  );
  const wrongState = await admin(`/admin/v1/actors?state=running&q=${id}`);
  assert.is(wrongState.body.total, 0);
  const tooOld = await admin(`/admin/v1/actors?min_age_s=3600&q=${id}`);
  assert.is(tooOld.body.total, 0);
});

test('cursor paging walks every live actor once, oldest first', async () => {
  for (let i = 0; i < 4; i++) await parkedSession();
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res: { body: { data: { id: string }[]; next_cursor: string | null; total: number } } = await admin(
      `/admin/v1/actors?machine=chat-session&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
    );
    seen.push(...res.body.data.map((actor) => actor.id));
    cursor = res.body.next_cursor;
    pages++;
    assert.ok(pages < 50);
  } while (cursor);
  assert.is(new Set(seen).size, seen.length, 'no actor twice');
  const total = (await admin('/admin/v1/actors?machine=chat-session&limit=500')).body.total;
  assert.is(seen.length, total);
});

test('one actor: snapshot, machine, node; unknown ids are 404; bad queries are 422 with detail', async () => {
  const id = await parkedSession();
  const one = await admin(`/admin/v1/actors/${id}`);
  assert.is(one.status, 200);
  assert.is(one.body.machine, 'chat-session');
  assert.is(one.body.live, true);
  assert.type(one.body.node, 'string');
  assert.equal(one.body.snapshot.value, 'awaiting_approval');
  assert.is(one.body.steps, 1);
  assert.is((await admin('/admin/v1/actors/sess_nope')).status, 404);
  const bad = await admin('/admin/v1/actors?limit=0');
  assert.is(bad.status, 422);
  assert.equal(bad.body.detail[0].loc, ['query', 'limit']);
  const badCursor = await admin('/admin/v1/actors?cursor=bm9wZQ');
  assert.is(badCursor.status, 422);
  assert.equal(badCursor.body.detail[0].loc, ['query', 'cursor']);
  assert.is((await server.request('GET', '/admin/v1/actors', { token: user.token })).status, 401);
});

test('time travel: steps persist state and context after each transition, and /at/{seq} answers from them', async () => {
  const id = await parkedSession();
  const approved = await server.request('POST', `/v1/chat/sessions/${id}/approve`, { token: user.token });
  assert.is(approved.status, 200);
  await waitDone(id);
  const steps = await admin(`/admin/v1/actors/${id}/steps`);
  assert.is(steps.status, 200);
  const states = steps.body.data.map((step: { state: string[] }) => step.state[0]);
  assert.is(states[0], 'awaiting_approval');
  assert.ok(
    states.some((state: string) => state.startsWith('running')),
    `a running step in ${states}`,
  );
  assert.is(states.at(-1), 'completed');
  assert.is(steps.body.data[1].cause, 'APPROVE');
  assert.is(steps.body.data[0].cause, 'xstate.init');
  const events = await admin(`/admin/v1/actors/${id}/events?limit=2`);
  assert.is(events.body.data.length, 2);
  assert.is(events.body.has_more, true);
  const rest = await admin(`/admin/v1/actors/${id}/events?after=${events.body.next_after}`);
  const all = [...events.body.data, ...rest.body.data];
  assert.equal(
    all.map((event: { seq: number }) => event.seq),
    all.map((_: unknown, i: number) => i + 1),
  );
  const approvedEvent = all.find((event: { type: string }) => event.type === 'approved');
  const at = await admin(`/admin/v1/actors/${id}/at/${approvedEvent.seq}`);
  assert.is(at.status, 200);
  assert.ok(at.body.up_to_seq >= approvedEvent.seq);
  assert.ok(at.body.state[0].startsWith('running'), `after approval: ${at.body.state}`);
  assert.type(at.body.context, 'object');
  // Acknowledged, the session finishes: no longer live, still inspectable from the store.
  assert.is((await server.request('POST', `/v1/chat/sessions/${id}/acknowledge`, { token: user.token })).status, 200);
  const finished = await admin(`/admin/v1/actors/${id}`);
  assert.is(finished.body.live, false);
  assert.is((await admin(`/admin/v1/actors/${id}/at/99999`)).status, 404);
  assert.is((await admin(`/admin/v1/actors/${id}/at/0`)).status, 422);
});

test('the event log streams over SSE: history, then live steps and events, then the end', async () => {
  const id = await parkedSession();
  const res = await fetch(`${server.url}/admin/v1/actors/${id}/events?stream=true`, {
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
  });
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
  const seen: { event: string; data: any }[] = [];
  const decoder = new SseDecoder((message) =>
    seen.push({ event: message.event ?? 'message', data: JSON.parse(message.data) }),
  );
  const reading = (async () => {
    for await (const chunk of res.body!) decoder.push(chunk as Uint8Array);
  })();
  // The first logged events arrive before anything moves.
  for (let i = 0; i < 100 && !seen.some((m) => m.event === 'event'); i++)
    await new Promise((resolve) => setTimeout(resolve, 10));
  assert.is((await server.request('POST', `/v1/chat/sessions/${id}/approve`, { token: user.token })).status, 200);
  for (let i = 0; i < 500 && !seen.some((m) => m.event === 'step' && m.data.state[0] === 'completed'); i++)
    await new Promise((resolve) => setTimeout(resolve, 10));
  assert.is((await server.request('POST', `/v1/chat/sessions/${id}/acknowledge`, { token: user.token })).status, 200);
  // uWS holds no event-loop handle of its own: the timer keeps the process up while the stream runs.
  const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('the stream did not end')), 10_000));
  await Promise.race([reading, timeout]);
  const names = seen.map((m) => m.event);
  assert.is(names.at(-1), 'end');
  const steps = seen.filter((m) => m.event === 'step').map((m) => m.data.state[0]);
  assert.ok(
    steps.some((state: string) => state.startsWith('running')),
    `steps seen: ${steps}`,
  );
  assert.ok(steps.includes('completed'), `steps seen: ${steps}`);
  assert.ok(
    seen.some((m) => m.event === 'received' && m.data.type === 'APPROVE'),
    'XState inspect fed the received event',
  );
  const seqs = seen.filter((m) => m.event === 'event').map((m) => m.data.seq);
  assert.equal(
    seqs,
    seqs.map((_: number, i: number) => i + 1),
    'every event once, in order',
  );
});

test('machines export as JSON with states and transitions, Mermaid and SCXML-like text', async () => {
  const json = await admin('/admin/v1/machines/chat-session');
  assert.is(json.status, 200);
  assert.ok(json.body.states.some((state: { path: string }) => state.path === 'awaiting_approval'));
  assert.ok(json.body.transitions.some((row: { event: string }) => row.event === 'APPROVE'));
  const mermaid = await fetch(`${server.url}/admin/v1/machines/chat-session?format=mermaid`, {
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
  });
  assert.match(await mermaid.text(), /^stateDiagram-v2/);
  const scxml = await fetch(`${server.url}/admin/v1/machines/realtime-call?format=scxml`, {
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
  });
  const text = await scxml.text();
  assert.match(text, /^<scxml /);
  assert.match(text, /<transition event="/);
  assert.is((await admin('/admin/v1/machines/nope')).status, 404);
  assert.is((await admin('/admin/v1/machines/chat-session?format=png')).status, 422);
  assert.is((await admin('/admin/v1/machines/chat-completion?format=mermaid')).status, 200);
});

test('without SVC_ADMIN_KEY the inspector, its API and the metrics are not there', async () => {
  for (const path of ['/inspector', '/inspector/main.js', '/admin/v1/actors', '/metrics']) {
    const res = await disabled.request('GET', path);
    assert.is(res.status, 404, path);
  }
});

test.run();
