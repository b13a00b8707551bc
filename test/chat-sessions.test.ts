import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { stateOf, type SessionSnapshot } from '../actors/sessions/session-record.js';
import { SimulatedClock } from '../runtime/clock.js';
import { startServer, type TestAccount, type TestServer } from './harness.js';

const test = suite('chat sessions: states, approval, clarification, events and billing');
let server: TestServer;
let account: TestAccount;
// Deadlines (the 1 s approval expiry) fire when the test moves this clock, never on their own.
const clock = new SimulatedClock();

test.before(async () => {
  server = await startServer({ SVC_SESSION_APPROVAL_TTL_S: '1' }, { clock });
  account = await server.account(20);
});
test.after(() => server.close());

const body = (content: string, extra: Record<string, unknown> = {}) => ({
  model: 'pro-1',
  messages: [{ role: 'user', content }],
  max_tokens: 40,
  ...extra,
});
const slow = { metadata: { sim: { tokens_per_s: 40 } } };
const api = (
  method: string,
  path: string,
  payload?: unknown,
  token = account.token,
  headers?: Record<string, string>,
) => server.request(method, path, { token, body: payload, headers });

/** The session once it is in one of `states` (or has ended in another), as GET shows it: no polling. */
async function waitState(id: string, states: string[]): Promise<any> {
  await server.app.deps.host.waitFor(id, (snapshot) =>
    states.includes(stateOf(snapshot as unknown as SessionSnapshot).state),
  );
  const res = await api('GET', `/v1/chat/sessions/${id}`);
  if (!states.includes(res.body.state)) throw new Error(`session ${id} ended in ${res.body.state}, not ${states}`);
  return res.body;
}

/** Follows a session's SSE until it ends; resolves with the whole text once `seen` has arrived. */
function follower(id: string, seen: string): { ready: Promise<void>; text: Promise<string> } {
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const text = (async () => {
    const res = await fetch(`${server.url}/v1/chat/sessions/${id}/events?after=-1`, {
      headers: { authorization: `Bearer ${account.token}` },
    });
    const decoder = new TextDecoder();
    let all = '';
    for await (const piece of res.body!) {
      all += decoder.decode(piece as Uint8Array, { stream: true });
      if (all.includes(seen)) markReady();
    }
    markReady();
    return all;
  })();
  return { ready, text };
}

async function balance(): Promise<number> {
  return Math.round((await api('GET', '/v1/account')).body.balance_usd * 1e6);
}

test('without approval the run starts at once, completes, and bills exactly its processed tokens', async () => {
  const before = await balance();
  const created = await api('POST', '/v1/chat/sessions', body('Plan a short trip'));
  assert.is(created.status, 201);
  assert.ok(created.body.id.startsWith('sess_'));
  const done = await waitState(created.body.id, ['completed']);
  const { prompt_tokens, completion_tokens } = done.usage;
  assert.is(Math.round(done.price_usd * 1e6), prompt_tokens * 12 + completion_tokens * 48);
  assert.is(before - (await balance()), Math.round(done.price_usd * 1e6));
  const result = await api('GET', `/v1/chat/sessions/${created.body.id}/result`);
  assert.is(result.status, 200);
  assert.is(result.body.object, 'chat.completion');
  assert.is(result.body.svc.price_usd, done.price_usd);
  assert.equal(result.body.usage, done.usage);
});

test('with require_approval it parks with the estimate quote; approve runs it', async () => {
  const request = body('Approve me first', { require_approval: true });
  const created = await api('POST', '/v1/chat/sessions', request);
  assert.is(created.body.state, 'awaiting_approval');
  const estimate = await server.request('POST', '/v1/estimate', { body: { ...request, response_mode: 'complex' } });
  assert.is(created.body.quote.cost_usd.max, estimate.body.cost_usd.max);
  assert.type(created.body.quote.expires_at, 'number');
  const early = await api('GET', `/v1/chat/sessions/${created.body.id}/result`);
  assert.is(early.status, 409);
  assert.is(early.headers.get('x-should-retry'), 'false');
  const approved = await api('POST', `/v1/chat/sessions/${created.body.id}/approve`);
  assert.is(approved.status, 200);
  await waitState(created.body.id, ['completed']);
  const again = await api('POST', `/v1/chat/sessions/${created.body.id}/approve`);
  assert.is(again.status, 409);
  const events = await api('GET', `/v1/chat/sessions/${created.body.id}/events-page`);
  const types = events.body.events.map((e: { type: string }) => e.type);
  assert.equal(types.slice(0, 3), ['created', 'awaiting_approval', 'approved']);
  assert.is(types.at(-1), 'completed');
});

test('an unapproved session expires at its deadline and charges nothing', async () => {
  const before = await balance();
  const created = await api('POST', '/v1/chat/sessions', body('Let me expire', { require_approval: true }));
  clock.advance(1000);
  const expired = await waitState(created.body.id, ['expired']);
  assert.is(expired.price_usd, 0);
  assert.is(await balance(), before);
});

test('a clarifying question parks the run in awaiting_user; live input continues it', async () => {
  const created = await api(
    'POST',
    '/v1/chat/sessions',
    body('What is the weather?', { metadata: { sim: { clarify: 'Which city?' } } }),
  );
  const waiting = await waitState(created.body.id, ['awaiting_user']);
  assert.is(waiting.question.text, 'Which city?');
  const wrong = await api('POST', `/v1/chat/sessions/${created.body.id}/live-input`, {
    content: 'Paris',
    question_id: 'not-this-one',
  });
  assert.is(wrong.status, 409);
  const answered = await api('POST', `/v1/chat/sessions/${created.body.id}/live-input`, {
    content: 'Paris',
    question_id: waiting.question.id,
  });
  assert.is(answered.status, 200);
  await waitState(created.body.id, ['completed']);
  const events = await api('GET', `/v1/chat/sessions/${created.body.id}/events-page`);
  const types = events.body.events.map((e: { type: string }) => e.type);
  assert.ok(types.includes('awaiting_user') && types.includes('live_input'));
});

test('the completion routes reach a session run by its completion id', async () => {
  const created = await api(
    'POST',
    '/v1/chat/sessions',
    body('Weather again?', { metadata: { sim: { clarify: 'Which town?' } } }),
  );
  const waiting = await waitState(created.body.id, ['awaiting_user']);
  const answered = await api('POST', `/v1/chat/completions/${created.body.completion_id}/live-input`, {
    content: 'Lyon',
  });
  assert.is(answered.status, 200);
  assert.is(answered.body.session_id, created.body.id);
  await waitState(created.body.id, ['completed']);
  assert.ok(waiting.question.id);
  const other = await api('POST', '/v1/chat/sessions', body('cancel by completion id', { require_approval: true }));
  assert.is((await api('POST', `/v1/chat/completions/${other.body.completion_id}/cancel`)).status, 200);
  await waitState(other.body.id, ['cancelled']);
  const stranger = await server.account(1);
  assert.is(
    (await api('POST', `/v1/chat/completions/${created.body.completion_id}/cancel`, undefined, stranger.token)).status,
    404,
  );
});

test('cancel works from awaiting_approval, running and awaiting_user; cancelled runs pay only what they processed', async () => {
  const parked = await api('POST', '/v1/chat/sessions', body('cancel parked', { require_approval: true }));
  const c1 = await api('POST', `/v1/chat/sessions/${parked.body.id}/cancel`, { reason: 'no' });
  assert.is(c1.status, 200);
  assert.is((await waitState(parked.body.id, ['cancelled'])).price_usd, 0);

  const before = await balance();
  const running = await api('POST', '/v1/chat/sessions', body('cancel running', { ...slow, max_tokens: 400 }));
  await waitState(running.body.id, ['running']);
  const c2 = await api('POST', `/v1/chat/sessions/${running.body.id}/cancel`);
  assert.is(c2.status, 200);
  const cancelled = await waitState(running.body.id, ['cancelled']);
  assert.is(cancelled.cancel_reason, 'cancelled by client');
  assert.is(before - (await balance()), Math.round(cancelled.price_usd * 1e6));
  assert.ok(cancelled.price_usd < cancelled.quote.hold_usd);

  const asking = await api(
    'POST',
    '/v1/chat/sessions',
    body('cancel asking', { metadata: { sim: { clarify: 'Really?' } } }),
  );
  await waitState(asking.body.id, ['awaiting_user']);
  assert.is((await api('POST', `/v1/chat/sessions/${asking.body.id}/cancel`)).status, 200);
  await waitState(asking.body.id, ['cancelled']);
  assert.is((await api('POST', `/v1/chat/sessions/${asking.body.id}/cancel`)).status, 409);
});

test('acknowledge only after completion; live input in the wrong state is a clear 409', async () => {
  const parked = await api('POST', '/v1/chat/sessions', body('ack later', { require_approval: true }));
  assert.is((await api('POST', `/v1/chat/sessions/${parked.body.id}/acknowledge`)).status, 409);
  const live = await api('POST', `/v1/chat/sessions/${parked.body.id}/live-input`, { content: 'too early' });
  assert.is(live.status, 409);
  assert.is(live.body.error.code, 'conflict');
  await api('POST', `/v1/chat/sessions/${parked.body.id}/approve`);
  await waitState(parked.body.id, ['completed']);
  assert.is((await api('POST', `/v1/chat/sessions/${parked.body.id}/live-input`, { content: 'too late' })).status, 409);
  const ack = await api('POST', `/v1/chat/sessions/${parked.body.id}/acknowledge`);
  assert.is(ack.body.state, 'acknowledged');
  assert.is((await api('GET', `/v1/chat/sessions/${parked.body.id}/result`)).status, 200);
});

test('Idempotency-Key returns the same session for the same body and 409 for another body', async () => {
  const key = `key-${Date.now()}`;
  const first = await api('POST', '/v1/chat/sessions', body('idempotent', { require_approval: true }), account.token, {
    'idempotency-key': key,
  });
  const second = await api('POST', '/v1/chat/sessions', body('idempotent', { require_approval: true }), account.token, {
    'idempotency-key': key,
  });
  assert.is(second.status, 200);
  assert.is(second.body.id, first.body.id);
  const other = await api('POST', '/v1/chat/sessions', body('different', { require_approval: true }), account.token, {
    'idempotency-key': key,
  });
  assert.is(other.status, 409);
  assert.is(other.headers.get('x-should-retry'), 'false');
});

test('delete: live sessions need force; deleted sessions are gone', async () => {
  const parked = await api('POST', '/v1/chat/sessions', body('delete me', { require_approval: true }));
  assert.is((await api('DELETE', `/v1/chat/sessions/${parked.body.id}`)).status, 409);
  const forced = await api('DELETE', `/v1/chat/sessions/${parked.body.id}?force=true`);
  assert.is(forced.body.deleted, true);
  assert.is((await api('GET', `/v1/chat/sessions/${parked.body.id}`)).status, 404);
  assert.is((await api('GET', `/v1/chat/sessions/${parked.body.id}/events-page`)).status, 404);
  assert.is((await api('DELETE', `/v1/chat/sessions/${parked.body.id}?force=maybe`)).status, 422);
});

test('list is newest first with a limit; other accounts see 404 on every route', async () => {
  // Newest first is by creation time, which only moves when the test moves it.
  clock.advance(1);
  const a = await api('POST', '/v1/chat/sessions', body('list one', { require_approval: true }));
  clock.advance(1);
  const b = await api('POST', '/v1/chat/sessions', body('list two', { require_approval: true }));
  const list = await api('GET', '/v1/chat/sessions?limit=2');
  assert.equal(
    list.body.data.map((s: { id: string }) => s.id),
    [b.body.id, a.body.id],
  );
  assert.is((await api('GET', '/v1/chat/sessions?limit=0')).status, 422);
  const other = await server.account(1);
  for (const [method, suffix] of [
    ['GET', ''],
    ['GET', '/result'],
    ['GET', '/events-page'],
    ['GET', '/events'],
    ['POST', '/approve'],
    ['POST', '/cancel'],
    ['POST', '/acknowledge'],
    ['DELETE', ''],
  ] as const) {
    const res = await api(method, `/v1/chat/sessions/${a.body.id}${suffix}`, undefined, other.token);
    assert.is(res.status, 404, `${method} ${suffix}`);
  }
  const live = await api('POST', `/v1/chat/sessions/${a.body.id}/live-input`, { content: 'x' }, other.token);
  assert.is(live.status, 404);
});

test('bad session bodies and queries are 422', async () => {
  assert.is((await api('POST', '/v1/chat/sessions', { model: 'pro-1' })).status, 422);
  assert.is((await api('POST', '/v1/chat/sessions', body('x', { require_approval: 'yes' }))).status, 422);
  assert.is((await api('POST', '/v1/chat/sessions', body('x', { model: 'nope' }))).status, 404);
  const s = await api('POST', '/v1/chat/sessions', body('q', { require_approval: true }));
  assert.is((await api('GET', `/v1/chat/sessions/${s.body.id}/events-page?after=abc`)).status, 422);
  assert.is((await api('GET', `/v1/chat/sessions/${s.body.id}/events-page?limit=0`)).status, 422);
  assert.is((await api('POST', `/v1/chat/sessions/${s.body.id}/live-input`, { question_id: 'x' })).status, 422);
});

test('a balance that cannot cover the quote is 402 at creation (or at approval)', async () => {
  const poor = await server.account(0);
  const now = await api('POST', '/v1/chat/sessions', body('no money'), poor.token);
  assert.is(now.status, 402);
  const parked = await api('POST', '/v1/chat/sessions', body('no money later', { require_approval: true }), poor.token);
  assert.is(parked.status, 201);
  const approve = await api('POST', `/v1/chat/sessions/${parked.body.id}/approve`, undefined, poor.token);
  assert.is(approve.status, 402);
  assert.is(
    (await api('GET', `/v1/chat/sessions/${parked.body.id}`, undefined, poor.token)).body.state,
    'awaiting_approval',
  );
});

test('paging with next_after misses nothing and repeats nothing; SSE from after resumes the same way', async () => {
  const created = await api('POST', '/v1/chat/sessions', body('page me', { metadata: { sim: { clarify: 'Sure?' } } }));
  await waitState(created.body.id, ['awaiting_user']);
  const waiting = await api('GET', `/v1/chat/sessions/${created.body.id}`);
  await api('POST', `/v1/chat/sessions/${created.body.id}/live-input`, {
    content: 'yes',
    question_id: waiting.body.question.id,
  });
  await waitState(created.body.id, ['completed']);
  const seqs: number[] = [];
  let after = -1;
  for (;;) {
    const page = await api('GET', `/v1/chat/sessions/${created.body.id}/events-page?after=${after}&limit=2`);
    seqs.push(...page.body.events.map((e: { seq: number }) => e.seq));
    if (page.body.events.length === 0) break;
    after = page.body.next_after;
  }
  assert.equal(
    seqs,
    Array.from({ length: seqs.length }, (_, i) => i + 1),
  );
  const res = await fetch(`${server.url}/v1/chat/sessions/${created.body.id}/events?after=3`, {
    headers: { authorization: `Bearer ${account.token}` },
  });
  const text = await res.text();
  const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
  assert.equal(ids, seqs.slice(3));
});

test('many SSE followers of one live session all receive every event in order', async () => {
  const created = await api('POST', '/v1/chat/sessions', body('fan out', { require_approval: true, ...slow }));
  const followers = Array.from({ length: 25 }, () => follower(created.body.id, 'event: awaiting_approval'));
  // Every follower is attached (it has the parked history) before the run starts.
  await Promise.all(followers.map((f) => f.ready));
  await api('POST', `/v1/chat/sessions/${created.body.id}/approve`);
  const texts = await Promise.all(followers.map((f) => f.text));
  const page = await api('GET', `/v1/chat/sessions/${created.body.id}/events-page?limit=1000`);
  const expected = page.body.events.map((e: { seq: number }) => e.seq);
  for (const text of texts)
    assert.equal(
      [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1])),
      expected,
    );
  assert.is(page.body.events.at(-1).type, 'completed');
});

test.run();
