import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AccountSubscriptionObjectSchema, SubscriptionObjectSchema } from '../protocols/payments.js';
import { SimulatedClock } from '../runtime/clock.js';
import { StripeDouble } from './doubles/stripe-double.js';
import { startServer, tempDataDir, type TestServer } from './harness.js';

const test = suite('payments: subscriptions as machines driven by verified webhooks');
const clock = new SimulatedClock(Date.UTC(2026, 6, 1));
/** Sessions outlive the 31 days these tests move the clock by. */
const LONG_SESSIONS = String(120 * 86_400);
let stripe: StripeDouble;
let server: TestServer;

interface Member {
  id: string;
  session: string;
}

async function member(srv: TestServer = server): Promise<Member> {
  const email = `member-${Math.random().toString(36).slice(2)}@example.com`;
  const res = await srv.request('POST', '/v1/auth/register', { body: { email, password: 'member password 1' } });
  return { id: res.body.account.id, session: res.body.token };
}

const current = async (m: Member, srv: TestServer = server) =>
  (await srv.request('GET', '/v1/account/subscription', { token: m.session })).body.subscription;
const tierOf = async (m: Member) => (await server.request('GET', '/v1/account/tier', { token: m.session })).body;
const granted = async (m: Member) =>
  (await server.request('GET', '/v1/early-access', { token: m.session })).body.granted_products;

/** Subscribes `m` to `plan` through checkout and the provider's two webhooks; the provider's subscription id. */
async function subscribe(m: Member, plan: string, srv: TestServer = server): Promise<string> {
  const checkout = await srv.request('POST', '/v1/account/subscription/checkout', { token: m.session, body: { plan } });
  assert.is(checkout.status, 201, JSON.stringify(checkout.body));
  const done = stripe.subscribed(checkout.body.id);
  assert.is((await stripe.deliver(srv.url, done.checkout)).status, 200);
  assert.is((await stripe.deliver(srv.url, done.created)).status, 200);
  return done.subscriptionId;
}

async function settled(srv: TestServer, m: Member): Promise<void> {
  const id = (await current(m, srv))?.id;
  if (id) await srv.app.deps.host.waitFor(id, (s) => s.value !== 'syncing');
}

test.before(async () => {
  stripe = await StripeDouble.start(() => clock.now());
  server = await startServer({ ...stripe.env(), SVC_SESSION_TTL_S: LONG_SESSIONS }, { clock });
});
test.after(async () => {
  await server.close();
  await stripe.close();
});

test('no subscription yet: the versioned plans, none with usage credits', async () => {
  const m = await member();
  const res = await server.request('GET', '/v1/account/subscription', { token: m.session });
  const overview = AccountSubscriptionObjectSchema.parse(res.body);
  assert.is(overview.subscription, null);
  assert.equal(
    overview.plans.map((p) => p.id),
    ['plus-2026-07', 'team-2026-07'],
  );
  assert.ok(overview.plans.every((p) => p.usage_credits_usd === 0));
});

test('checkout → webhooks → active: the plan raises the tier floor and opens early access, never the balance', async () => {
  const m = await member();
  const checkout = await server.request('POST', '/v1/account/subscription/checkout', {
    token: m.session,
    body: { plan: 'plus-2026-07' },
  });
  assert.is(checkout.body.purpose, 'subscription');
  assert.is(checkout.body.amount_usd, 20);
  const sent = stripe.requests.filter((r) => r.path === '/v1/checkout/sessions').at(-1)!;
  assert.is(sent.form.mode, 'subscription');
  assert.is(sent.form.line_items[0].price, 'price_plus');
  assert.equal(sent.form.subscription_data.metadata, { account_id: m.id, plan: 'plus-2026-07' });
  const done = stripe.subscribed(checkout.body.id);
  await stripe.deliver(server.url, done.checkout);
  await stripe.deliver(server.url, done.created);
  const sub = SubscriptionObjectSchema.parse(await current(m));
  assert.is(sub.status, 'active');
  assert.is(sub.plan, 'plus-2026-07');
  assert.is(sub.pending, null);
  assert.equal(await tierOf(m).then((t) => [t.tier, t.source]), ['tier-2', 'plan']);
  assert.equal(await granted(m), ['marketplace']);
  assert.is((await server.request('GET', '/v1/account', { token: m.session })).body.balance_usd, 0);
  const again = await server.request('POST', '/v1/account/subscription/checkout', {
    token: m.session,
    body: { plan: 'team-2026-07' },
  });
  assert.is(again.status, 409);
  assert.is(again.body.error.code, 'subscription_exists');
});

test('change: sent to the provider (prorated), pending until its webhook confirms', async () => {
  const m = await member();
  const subId = await subscribe(m, 'plus-2026-07');
  const changed = await server.request('POST', '/v1/account/subscription/change', {
    token: m.session,
    body: { plan: 'team-2026-07' },
  });
  assert.is(changed.status, 202, JSON.stringify(changed.body));
  assert.is(changed.body.plan, 'plus-2026-07');
  assert.equal(changed.body.pending.action, 'change');
  const update = stripe.requests.filter((r) => r.method === 'POST' && r.path === `/v1/subscriptions/${subId}`).at(-1)!;
  assert.is(update.form.proration_behavior, 'create_prorations');
  assert.is(update.form.items[0].price, 'price_team');
  await stripe.deliver(server.url, stripe.subscriptionEvent(subId, 'updated'));
  const sub = await current(m);
  assert.is(sub.plan, 'team-2026-07');
  assert.is(sub.pending, null);
  assert.is((await tierOf(m)).tier, 'tier-3');
  assert.equal(await granted(m), ['marketplace', 'ai-companies']);
});

test('cancel: at period end, access stays until then, then the subscription ends by its deadline', async () => {
  const m = await member();
  const subId = await subscribe(m, 'plus-2026-07');
  const cancelled = await server.request('POST', '/v1/account/subscription/cancel', { token: m.session });
  assert.is(cancelled.status, 202);
  assert.is(cancelled.body.pending.action, 'cancel');
  assert.is(stripe.subscriptions.get(subId)!.cancel_at_period_end, true);
  await stripe.deliver(server.url, stripe.subscriptionEvent(subId, 'updated'));
  const sub = await current(m);
  assert.is(sub.status, 'cancel_at_period_end');
  assert.is(sub.cancel_at, sub.current_period_end);
  assert.is((await tierOf(m)).tier, 'tier-2');
  // Cancelling again changes nothing and calls nobody.
  const calls = stripe.requests.length;
  assert.is(
    (await server.request('POST', '/v1/account/subscription/cancel', { token: m.session, body: {} })).status,
    202,
  );
  assert.is(stripe.requests.length, calls);
  clock.advance(31 * 86_400_000);
  await settled(server, m);
  assert.is((await current(m)).status, 'ended');
  assert.is((await tierOf(m)).tier, 'free');
  assert.equal(await granted(m), []);
  // Ended: a new checkout is allowed.
  assert.is(
    (
      await server.request('POST', '/v1/account/subscription/checkout', {
        token: m.session,
        body: { plan: 'plus-2026-07' },
      })
    ).status,
    201,
  );
});

test('past due keeps access through a grace; deleted ends at once; stale and repeated events change nothing', async () => {
  const m = await member();
  const subId = await subscribe(m, 'team-2026-07');
  const newer = stripe.subscriptionEvent(subId, 'updated', { status: 'past_due' });
  await stripe.deliver(server.url, newer);
  assert.is((await current(m)).status, 'past_due');
  assert.is((await tierOf(m)).tier, 'tier-3');
  const older = stripe.subscriptionEvent(subId, 'updated', { status: 'active' }, { createdMs: clock.now() - 60_000 });
  await stripe.deliver(server.url, older);
  assert.is((await current(m)).status, 'past_due');
  assert.is((await stripe.deliver(server.url, newer)).body.duplicate, true);
  await stripe.deliver(server.url, stripe.subscriptionEvent(subId, 'deleted', { status: 'canceled' }));
  await settled(server, m);
  assert.is((await current(m)).status, 'ended');
  assert.is((await tierOf(m)).tier, 'free');
  assert.is(
    (await stripe.deliver(server.url, stripe.subscriptionEvent(subId, 'updated', { status: 'active' }))).status,
    200,
  );
  assert.is((await current(m)).status, 'ended');
});

test('portal: a hosted URL once the account has a billing customer', async () => {
  const m = await member();
  const before = await server.request('POST', '/v1/account/subscription/portal', { token: m.session });
  assert.is(before.status, 409);
  assert.is(before.body.error.code, 'billing_account_required');
  await server.request('POST', '/v1/account/checkout', { token: m.session, body: { amount_usd: 5 } });
  const portal = await server.request('POST', '/v1/account/subscription/portal', { token: m.session });
  assert.is(portal.status, 200);
  assert.match(portal.body.url, /^https:\/\/billing\.double\.test\//);
  assert.is(stripe.requests.at(-1)!.form.return_url, `http://127.0.0.1:0/account/billing`);
});

test('foreign subscriptions: another account sees none and cannot cancel or change it; a stolen customer is refused', async () => {
  const owner = await member();
  const subId = await subscribe(owner, 'plus-2026-07');
  const stranger = await member();
  assert.is(await current(stranger), null);
  assert.is(
    (await server.request('POST', '/v1/account/subscription/cancel', { token: stranger.session })).body.error.code,
    'subscription_required',
  );
  assert.is(
    (
      await server.request('POST', '/v1/account/subscription/change', {
        token: stranger.session,
        body: { plan: 'team-2026-07' },
      })
    ).body.error.code,
    'subscription_required',
  );
  // A subscription claiming the stranger, on the owner's customer, does not move to the stranger.
  const sub = {
    ...stripe.subscriptions.get(subId)!,
    id: 'sub_forged_claim',
    metadata: { account_id: stranger.id, plan: 'team-2026-07' },
  };
  stripe.subscriptions.set('sub_forged_claim', sub);
  await stripe.deliver(server.url, stripe.event('customer.subscription.created', sub));
  assert.is(await current(stranger), null);
  assert.is((await current(owner)).plan, 'plus-2026-07');
});

test('bad inputs and credentials on every subscription route', async () => {
  const m = await member();
  for (const path of ['/v1/account/subscription/checkout', '/v1/account/subscription/change']) {
    for (const body of [{}, { plan: 'gold' }, { plan: 7 }, { plan: 'plus-2025-01' }]) {
      const res = await server.request('POST', path, { token: m.session, body });
      assert.is(res.status, 422, `${path} ${JSON.stringify(body)}`);
    }
  }
  const account = await server.account(0);
  for (const path of [
    '/v1/account/subscription/checkout',
    '/v1/account/subscription/cancel',
    '/v1/account/subscription/change',
    '/v1/account/subscription/portal',
  ]) {
    assert.is(
      (await server.request('POST', path, { token: account.token, body: { plan: 'plus-2026-07' } })).body.error.code,
      'session_required',
      path,
    );
    assert.is((await server.request('POST', path, { body: {} })).status, 401, path);
  }
  assert.is((await server.request('GET', '/v1/account/subscription', { token: account.token })).status, 200);
  assert.is(
    (
      await server.request('POST', '/v1/account/subscription/cancel', {
        token: m.session,
        raw: '[1]',
        headers: { 'content-type': 'application/json' },
      })
    ).status,
    422,
  );
});

test('without a provider: plans still listed, nothing to cancel or manage, checkout 503', async () => {
  const off = await startServer({}, { clock });
  try {
    const m = await member(off);
    assert.is(await current(m, off), null);
    assert.is(
      (await off.request('POST', '/v1/account/subscription/cancel', { token: m.session })).body.error.code,
      'subscription_required',
    );
    assert.is(
      (await off.request('POST', '/v1/account/subscription/portal', { token: m.session })).body.error.code,
      'billing_account_required',
    );
    const checkout = await off.request('POST', '/v1/account/subscription/checkout', {
      token: m.session,
      body: { plan: 'plus-2026-07' },
    });
    assert.is(checkout.status, 503);
    assert.is(checkout.body.error.code, 'payments_not_configured');
  } finally {
    await off.close();
  }
});

test('a subscription survives a restart: its period-end deadline is re-armed and still ends it', async () => {
  const dataDir = tempDataDir();
  const first = await startServer(
    { ...stripe.env(), SVC_DATA_DIR: dataDir, SVC_SESSION_TTL_S: LONG_SESSIONS },
    { clock },
  );
  const m = await member(first);
  const subId = await subscribe(m, 'plus-2026-07', first);
  await first.request('POST', '/v1/account/subscription/cancel', { token: m.session });
  await stripe.deliver(first.url, stripe.subscriptionEvent(subId, 'updated'));
  assert.is((await current(m, first)).status, 'cancel_at_period_end');
  await first.close();
  const second = await startServer(
    { ...stripe.env(), SVC_DATA_DIR: dataDir, SVC_SESSION_TTL_S: LONG_SESSIONS },
    { clock },
  );
  try {
    const login = await second.request('GET', '/v1/account/subscription', { token: m.session });
    assert.is(login.body.subscription.status, 'cancel_at_period_end');
    clock.advance(31 * 86_400_000);
    await settled(second, m);
    assert.is((await current(m, second)).status, 'ended');
    assert.is((await second.request('GET', '/v1/account/tier', { token: m.session })).body.tier, 'free');
  } finally {
    await second.close();
  }
});

test.run();
