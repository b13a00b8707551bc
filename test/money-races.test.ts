import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LIVE_SESSION_STATES } from '../actors/sessions/session-states.js';
import { stateOf, type SessionSnapshot } from '../http/views/session-view.js';
import { AccountServices } from '../actors/accounts/account-services.js';
import { SimulatedClock } from '../runtime/clock.js';
import { LmdbStore } from '../runtime/store/lmdb-store.js';
import { ADMIN_KEY, startServer, tempDataDir, type TestAccount, type TestServer } from './harness.js';

const test = suite('money races: holds are owned, keys are reserved, a settle is one step');
let server: TestServer;

test.before(async () => {
  server = await startServer();
});
test.after(() => server.close());

/** A session request that runs slowly on the sim, so races land while it is live. */
const slowSession = (content: string, extra: Record<string, unknown> = {}) => ({
  model: 'pro-1',
  messages: [{ role: 'user', content }],
  max_tokens: 2000,
  metadata: { sim: { ttft_ms: 150, tokens_per_s: 200 } },
  ...extra,
});

const micros = (usd: number) => Math.round(usd * 1e6);

async function accountState(account: TestAccount): Promise<{ balance: number; held: number; available: number }> {
  const res = await server.request('GET', '/v1/account', { token: account.token });
  return {
    balance: micros(res.body.balance_usd),
    held: micros(res.body.held_usd),
    available: micros(res.body.available_usd),
  };
}

/** Resolves once the session has left its live states (its charge, if any, is committed). */
async function settled(id: string): Promise<void> {
  await server.app.deps.host.waitFor(
    id,
    (snapshot) => !LIVE_SESSION_STATES.includes(stateOf(snapshot as unknown as SessionSnapshot).state),
  );
}

async function charges(account: TestAccount): Promise<{ amount_usd: number; description: string }[]> {
  const usage = await server.request('GET', '/v1/account/usage?limit=500', { token: account.token });
  return usage.body.recent.filter((entry: { type: string }) => entry.type === 'charge');
}

test('two concurrent approves hold the quote once and the balance never goes negative (regression: the loser released the winner hold)', async () => {
  const account = await server.account(0.2);
  const created = await server.request('POST', '/v1/chat/sessions', {
    token: account.token,
    body: slowSession('Race my approval', { require_approval: true }),
  });
  assert.is(created.status, 201);
  const holdMicros = micros(created.body.quote.hold_usd);
  const path = `/v1/chat/sessions/${created.body.id}/approve`;
  const results = await Promise.all([
    server.request('POST', path, { token: account.token }),
    server.request('POST', path, { token: account.token }),
  ]);
  assert.equal(results.map((r) => r.status).sort(), [200, 409]);

  const running = await accountState(account);
  assert.is(running.held, holdMicros, 'the winner hold is still held while the run is live');
  assert.is(running.available, 200_000 - holdMicros);
  // What no longer fits beside the held quote is refused, not served on credit.
  const tooBig = await server.request('POST', '/v1/chat/completions', {
    token: account.token,
    body: slowSession('Does this fit?'),
  });
  assert.is(tooBig.status, 402);

  await settled(created.body.id);
  const after = await accountState(account);
  assert.is(after.held, 0);
  assert.ok(after.balance >= 0, `balance ${after.balance}`);
  const charged = await charges(account);
  assert.is(charged.length, 1);
  assert.is(after.balance, 200_000 + micros(charged[0]!.amount_usd));
});

test('fifty concurrent creates with one Idempotency-Key make one session and one charge (regression: ten sessions, ten charges)', async () => {
  const account = await server.account(5);
  const body = slowSession('Only once, please');
  const results = await Promise.all(
    Array.from({ length: 50 }, () =>
      server.request('POST', '/v1/chat/sessions', {
        token: account.token,
        body,
        headers: { 'idempotency-key': 'same-key-50' },
      }),
    ),
  );
  const statuses = results.map((r) => r.status);
  assert.is(statuses.filter((s) => s === 201).length, 1, `statuses ${statuses}`);
  assert.is(statuses.filter((s) => s === 200).length, 49);
  assert.is(new Set(results.map((r) => r.body.id)).size, 1);
  for (const r of results.filter((x) => x.status === 200)) assert.is(r.headers.get('idempotent-replayed'), 'true');
  const list = await server.request('GET', '/v1/chat/sessions', { token: account.token });
  assert.is(list.body.data.length, 1);
  await settled(results[0]!.body.id);
  const charged = await charges(account);
  assert.is(charged.length, 1);
  const after = await accountState(account);
  assert.is(after.held, 0);
  assert.is(after.balance, 5_000_000 + micros(charged[0]!.amount_usd));
});

test('a key reused with another body while the first is in flight is a 409 and makes nothing', async () => {
  const account = await server.account(5);
  const headers = { 'idempotency-key': 'two-bodies' };
  const [first, second] = await Promise.all([
    server.request('POST', '/v1/chat/sessions', { token: account.token, body: slowSession('Body one'), headers }),
    server.request('POST', '/v1/chat/sessions', { token: account.token, body: slowSession('Body two'), headers }),
  ]);
  assert.is(first.status, 201);
  assert.is(second.status, 409);
  assert.is(second.body.error.code, 'conflict');
  assert.is(second.body.error.param, 'Idempotency-Key');
  const list = await server.request('GET', '/v1/chat/sessions', { token: account.token });
  assert.is(list.body.data.length, 1);
  await settled(first.body.id);
});

test('a key whose first attempt failed (402) is free for a retry', async () => {
  const account = await server.account(0.001);
  const headers = { 'idempotency-key': 'retry-after-402' };
  const body = slowSession('Too expensive for now');
  const refused = await server.request('POST', '/v1/chat/sessions', { token: account.token, body, headers });
  assert.is(refused.status, 402);
  await server.request('POST', `/admin/v1/accounts/${account.id}/credit`, { token: ADMIN_KEY, body: { usd: 5 } });
  const retried = await server.request('POST', '/v1/chat/sessions', { token: account.token, body, headers });
  assert.is(retried.status, 201);
  await settled(retried.body.id);
});

test('fifty concurrent approves, cancels and live-inputs on one session: one effect each, balance and holds exact', async () => {
  const account = await server.account(1);
  const created = await server.request('POST', '/v1/chat/sessions', {
    token: account.token,
    body: slowSession('Storm me', { require_approval: true }),
  });
  const id = created.body.id as string;
  const kinds = Array.from({ length: 50 }, (_, i) => (['approve', 'cancel', 'live-input'] as const)[(i * 7) % 3]!);
  const results = await Promise.all(
    kinds.map((kind) =>
      server.request('POST', `/v1/chat/sessions/${id}/${kind}`, {
        token: account.token,
        body: kind === 'live-input' ? { content: 'more detail' } : undefined,
      }),
    ),
  );
  for (const r of results)
    assert.ok(r.status === 200 || r.status === 409, `status ${r.status}: ${JSON.stringify(r.body)}`);
  const ok = (kind: string) => results.filter((r, i) => kinds[i] === kind && r.status === 200).length;
  assert.ok(ok('approve') <= 1, `approves accepted: ${ok('approve')}`);
  assert.is(ok('cancel'), 1, 'exactly one cancel ends the run');

  await settled(id);
  const page = await server.request('GET', `/v1/chat/sessions/${id}/events-page?limit=1000`, { token: account.token });
  const count = (type: string) => page.body.events.filter((e: { type: string }) => e.type === type).length;
  assert.is(count('approved'), ok('approve'));
  assert.is(count('live_input'), ok('live-input'));
  assert.is(count('cancelled'), 1);

  const after = await accountState(account);
  assert.is(after.held, 0);
  const charged = await charges(account);
  assert.ok(charged.length <= 1);
  const spent = charged.reduce((sum, entry) => sum - micros(entry.amount_usd), 0);
  assert.is(after.balance, 1_000_000 - spent);
  assert.ok(after.balance >= 0);
});

test('while a charge commits, readers see it and the hold release as one step (regression: available went negative for an instant)', async () => {
  const dir = tempDataDir();
  const store = LmdbStore.open(dir);
  const services = new AccountServices(store, new SimulatedClock(), { sessionTtlMs: 60_000, usageFlushMs: 0 });
  try {
    const created = await services.createAccount({
      email: 'one-step@example.com',
      password: null,
      creditMicros: 1000,
      tokenLabel: 't',
    });
    const id = created!.account.id;
    const seen = new Set<string>();
    for (let round = 0; round < 20; round++) {
      const { balance } = services.ledger.state(id);
      const hold = services.ledger.hold({ accountId: id, tokenId: null, amount: balance });
      let done = false;
      const settling = services.ledger
        .settle(hold, {
          charge: 10,
          description: 'r',
          requestId: null,
          model: null,
          promptTokens: 1,
          completionTokens: 1,
        })
        .then(() => (done = true));
      // Sample on every turn of the event loop until the settle resolves: before, the hold counts in full; after, the charge.
      while (!done) {
        const state = services.ledger.state(id);
        const available = state.balance - state.held;
        assert.ok(
          available === 0 || (available === balance - 10 - 0 && state.held === 0),
          `round ${round}: ${JSON.stringify(state)} from ${balance}`,
        );
        seen.add(available === 0 ? 'before' : 'after');
        await new Promise((resolve) => setImmediate(resolve));
      }
      await settling;
      assert.equal(services.ledger.state(id), { balance: balance - 10, held: 0 });
    }
    assert.ok(seen.has('before'));
  } finally {
    await services.close();
    await store.close();
  }
});

test.run();
