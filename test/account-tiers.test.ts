import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AccountTierObjectSchema } from '../protocols/payments.js';
import { PricingObjectSchema } from '../protocols/pricing.js';
import { SimulatedClock } from '../runtime/clock.js';
import { ADMIN_KEY, chatBody, startServer, type TestServer } from './harness.js';

const test = suite('account: usage tiers, their ladder, and the caps the perimeter enforces');
const clock = new SimulatedClock(Date.UTC(2026, 6, 1));
let server: TestServer;

const setTier = (id: string, tier: unknown) =>
  server.request('POST', `/admin/v1/accounts/${id}/tier`, { token: ADMIN_KEY, body: { tier } });

test.before(async () => {
  server = await startServer({}, { clock });
});
test.after(() => server.close());

test('a self-registered account starts on the free tier; the answer names the next rung and the ladder', async () => {
  const registered = await server.request('POST', '/v1/auth/register', {
    body: { email: `tier-${process.pid}@example.com`, password: 'tier password 1' },
  });
  const res = await server.request('GET', '/v1/account/tier', { token: registered.body.token });
  assert.is(res.status, 200);
  const tier = AccountTierObjectSchema.parse(res.body);
  assert.is(tier.tier, 'free');
  assert.is(tier.source, 'ladder');
  assert.equal(tier.limits, { requests_per_minute: 60, max_concurrent_requests: 4 });
  assert.equal(tier.next, {
    tier: 'tier-1',
    requirements: { paid_usd: 5, account_age_days: 0 },
    missing: { paid_usd: 5, account_age_days: 0 },
  });
  assert.equal(
    tier.ladder.map((t) => t.id),
    ['free', 'tier-1', 'tier-2', 'tier-3', 'tier-4'],
  );
  const pricing = PricingObjectSchema.parse((await server.request('GET', '/v1/pricing')).body);
  assert.equal(pricing.tiers.ladder, tier.ladder);
});

test('operator-made accounts are custom (no tier caps) unless the operator says otherwise', async () => {
  const account = await server.account(1);
  const custom = await server.request('GET', '/v1/account/tier', { token: account.token });
  assert.is(custom.body.tier, 'custom');
  assert.is(custom.body.source, 'operator');
  assert.is(custom.body.limits, null);
  assert.is(custom.body.next, null);
  assert.is((await setTier(account.id, 'tier-2')).body.account.tier, 'tier-2');
  assert.is(
    (await server.request('GET', '/v1/account/tier', { token: account.session })).body.limits.requests_per_minute,
    2000,
  );
  assert.is((await setTier(account.id, 'auto')).body.account.tier, 'free');
  const created = await server.request('POST', '/admin/v1/accounts', {
    token: ADMIN_KEY,
    body: { email: `laddered-${process.pid}@example.com`, tier: 'auto' },
  });
  assert.is(created.body.account.tier, 'free');
  assert.is((await setTier(account.id, 'tier-9')).status, 422);
  assert.is((await setTier(account.id, undefined)).status, 422);
  assert.is((await setTier('acct_missing', 'free')).status, 404);
});

test('requests per minute are per account: every token together, 429 with Retry-After past the tier', async () => {
  const account = await server.account(1);
  await setTier(account.id, 'free');
  const second = await server.request('POST', '/v1/account/tokens', {
    token: account.session,
    body: { label: 'second' },
  });
  for (let i = 0; i < 60; i++) {
    const res = await server.request('GET', '/v1/usage', { token: i % 2 === 0 ? account.token : second.body.token });
    assert.is(res.status, 200, `request ${i}`);
  }
  const refused = await server.request('GET', '/v1/usage', { token: second.body.token });
  assert.is(refused.status, 429);
  assert.is(refused.body.error.code, 'rate_limit_exceeded');
  assert.is(refused.headers.get('retry-after'), '1');
  clock.advance(60_000);
  assert.is((await server.request('GET', '/v1/usage', { token: account.token })).status, 200);
});

test('requests in flight are capped per account; the slot frees when the answer ends', async () => {
  const account = await server.account(5);
  await setTier(account.id, 'free');
  const auth = server.app.deps.auth;
  const aborts = Array.from({ length: 4 }, () => new AbortController());
  const streams = aborts.map((abort) =>
    fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      signal: abort.signal,
      headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(chatBody('Slow one', { stream: true, metadata: { sim: { ttft_ms: 30_000 } } })),
    }).catch(() => null),
  );
  while (auth.inFlight(account.id) < 4) await new Promise((resolve) => setImmediate(resolve));
  const refused = await server.request('POST', '/v1/chat/completions', { token: account.token, body: chatBody() });
  assert.is(refused.status, 429);
  assert.is(refused.body.error.code, 'concurrency_limit_exceeded');
  // Account routes are not API requests: they stay open.
  assert.is((await server.request('GET', '/v1/account/tier', { token: account.token })).status, 200);
  for (const abort of aborts) abort.abort();
  await Promise.all(streams);
  while (auth.inFlight(account.id) > 0) await new Promise((resolve) => setImmediate(resolve));
  assert.is(
    (await server.request('POST', '/v1/chat/completions', { token: account.token, body: chatBody() })).status,
    200,
  );
  assert.is(auth.inFlight(account.id), 0);
});

test('custom accounts have no tier caps', async () => {
  const account = await server.account(1);
  const results = await Promise.all(
    Array.from({ length: 80 }, () => server.request('GET', '/v1/usage', { token: account.token })),
  );
  assert.ok(results.every((r) => r.status === 200));
});

test.run();
