import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { WebhookAckObjectSchema } from '../protocols/payments.js';
import { SimulatedClock } from '../runtime/clock.js';
import { StripeDouble } from './doubles/stripe-double.js';
import { startServer, type TestAccount, type TestServer } from './harness.js';

const test = suite('payments: signed webhooks credit the balance exactly once');
const clock = new SimulatedClock(Date.UTC(2026, 6, 1));
let stripe: StripeDouble;
let server: TestServer;

const balance = async (account: TestAccount) =>
  Math.round((await server.request('GET', '/v1/account', { token: account.session })).body.balance_usd * 1e6);
const topups = async (account: TestAccount) =>
  (await server.request('GET', '/v1/account/usage', { token: account.session })).body.recent.filter(
    (e: { type: string }) => e.type === 'topup',
  );

/** A self-registered account (balance 0, on the ladder) with an open checkout of `usd`. */
async function withCheckout(usd: number): Promise<{ account: TestAccount; checkoutId: string }> {
  const email = `payer-${Math.random().toString(36).slice(2)}@example.com`;
  const registered = await server.request('POST', '/v1/auth/register', {
    body: { email, password: 'payer password 1' },
  });
  const account = {
    id: registered.body.account.id,
    email,
    password: 'payer password 1',
    token: '',
    tokenId: '',
    session: registered.body.token,
  };
  const checkout = await server.request('POST', '/v1/account/checkout', {
    token: account.session,
    body: { amount_usd: usd },
  });
  assert.is(checkout.status, 201, JSON.stringify(checkout.body));
  return { account, checkoutId: checkout.body.id };
}

test.before(async () => {
  stripe = await StripeDouble.start(() => clock.now());
  server = await startServer(stripe.env(), { clock });
});
test.after(async () => {
  await server.close();
  await stripe.close();
});

test('a paid checkout credits its amount as a top-up in /v1/account/usage, and counts toward the tier', async () => {
  const { account, checkoutId } = await withCheckout(50);
  const res = await stripe.deliver(server.url, stripe.paid(checkoutId));
  assert.is(res.status, 200);
  assert.equal(WebhookAckObjectSchema.parse(res.body), { received: true, duplicate: false });
  assert.is(await balance(account), 50_000_000);
  const [entry] = await topups(account);
  assert.is(entry.amount_usd, 50);
  assert.ok(entry.description.includes(checkoutId));
  const tier = await server.request('GET', '/v1/account/tier', { token: account.session });
  assert.is(tier.body.tier, 'tier-1');
  assert.is(tier.body.paid_usd, 50);
  assert.equal(tier.body.next.missing, { paid_usd: 0, account_age_days: 7 });
  clock.advance(7 * 86_400_000);
  assert.is((await server.request('GET', '/v1/account/tier', { token: account.session })).body.tier, 'tier-2');
});

test('a refund takes the refunded money back once, up to what was credited; the usage lists it and the tier counts it', async () => {
  const { account, checkoutId } = await withCheckout(50);
  assert.is((await stripe.deliver(server.url, stripe.paid(checkoutId))).status, 200);
  const partial = stripe.refunded(checkoutId, 2_000);
  assert.equal((await stripe.deliver(server.url, partial)).body, { received: true, duplicate: false });
  assert.is(await balance(account), 30_000_000);
  assert.equal(
    (await stripe.deliver(server.url, partial)).body,
    { received: true, duplicate: true },
    'a redelivery moves nothing',
  );
  // Stripe's refunded total is cumulative: the full refund takes back the other 30, not 50 more.
  await stripe.deliver(server.url, stripe.refunded(checkoutId, 5_000));
  await stripe.deliver(server.url, stripe.refunded(checkoutId, 5_000));
  assert.is(await balance(account), 0);
  const usage = await server.request('GET', '/v1/account/usage', { token: account.session });
  const reversals = usage.body.recent.filter((e: { type: string }) => e.type === 'reversal');
  assert.equal(
    reversals.map((e: { amount_usd: number }) => e.amount_usd),
    [-30, -20],
  );
  assert.ok(reversals[0].description.includes(checkoutId));
  assert.is((await server.request('GET', '/v1/account/tier', { token: account.session })).body.paid_usd, 0);
});

test('a dispute takes its amount back when opened, once, gives it back when won; a lost one moves nothing more; spent money leaves a negative balance that refuses holds', async () => {
  const { account, checkoutId } = await withCheckout(40);
  await stripe.deliver(server.url, stripe.paid(checkoutId));
  await stripe.deliver(server.url, stripe.disputed(checkoutId, 'dp_won', 4_000, 'created'));
  await stripe.deliver(server.url, stripe.disputed(checkoutId, 'dp_won', 4_000, 'created'));
  assert.is(await balance(account), 0, 'opened twice (two deliveries, two event ids) takes the money once');
  await stripe.deliver(server.url, stripe.disputed(checkoutId, 'dp_won', 4_000, 'won'));
  assert.is(await balance(account), 40_000_000);
  await stripe.deliver(server.url, stripe.disputed(checkoutId, 'dp_won', 4_000, 'won'));
  assert.is(await balance(account), 40_000_000, 'won twice gives it back once');

  const second = await withCheckout(10);
  await stripe.deliver(server.url, stripe.paid(second.checkoutId));
  const minted = await server.request('POST', '/v1/account/tokens', {
    token: second.account.session,
    body: { label: 'spender' },
  });
  const chat = () =>
    server.request('POST', '/v1/chat/completions', {
      token: minted.body.token,
      body: { model: 'pro-1', messages: [{ role: 'user', content: `spend ${Math.random()}` }], max_tokens: 16 },
    });
  const spent = await chat();
  assert.is(spent.status, 200, JSON.stringify(spent.body));
  await stripe.deliver(server.url, stripe.disputed(second.checkoutId, 'dp_lost', 1_000, 'created'));
  await stripe.deliver(server.url, stripe.disputed(second.checkoutId, 'dp_lost', 1_000, 'lost'));
  assert.is(
    await balance(second.account),
    -Math.round(Number(spent.headers.get('x-svc-price-usd')) * 1e6),
    'what was spent stays spent: the balance is below zero',
  );
  assert.is((await chat()).status, 402, 'and no hold fits until the account is topped up');
});

test('a refund of a payment this server never credited is acknowledged and moves nothing', async () => {
  const { account, checkoutId } = await withCheckout(15);
  const res = await stripe.deliver(server.url, stripe.refunded(checkoutId, 1_500));
  assert.is(res.status, 200);
  assert.is(await balance(account), 0);
});

test('the acknowledgement waits until the credit is on disk, not only visible', async () => {
  const { account, checkoutId } = await withCheckout(25);
  const store = server.app.deps.store;
  let release!: () => void;
  const flushedNow = new Promise<void>((resolve) => (release = resolve));
  let asked = 0;
  // The store's own flush stands in for the disk: held until released.
  Object.defineProperty(store, 'flushed', { configurable: true, get: () => (asked++, flushedNow) });
  try {
    let answered = false;
    const delivery = stripe.deliver(server.url, stripe.paid(checkoutId)).then((res) => ((answered = true), res));
    while (asked === 0 && !answered) await new Promise((resolve) => setImmediate(resolve));
    assert.is(await balance(account), 25_000_000, 'committed and visible');
    assert.is(answered, false, 'not acknowledged before the flush');
    release();
    const res = await delivery;
    assert.is(res.status, 200);
    assert.is(res.body.duplicate, false);
  } finally {
    delete (store as unknown as Record<string, unknown>).flushed;
  }
});

test('a replayed event is acknowledged as a duplicate and credits nothing', async () => {
  const { account, checkoutId } = await withCheckout(10);
  const event = stripe.paid(checkoutId);
  await stripe.deliver(server.url, event);
  const again = await stripe.deliver(server.url, event);
  assert.is(again.status, 200);
  assert.is(again.body.duplicate, true);
  assert.is(await balance(account), 10_000_000);
  assert.is((await topups(account)).length, 1);
});

test('the same event delivered twice at once is credited once', async () => {
  const { account, checkoutId } = await withCheckout(20);
  const event = stripe.paid(checkoutId);
  const results = await Promise.all(Array.from({ length: 8 }, () => stripe.deliver(server.url, event)));
  assert.ok(results.every((r) => r.status === 200));
  assert.is(results.filter((r) => !r.body.duplicate).length, 1);
  assert.is(await balance(account), 20_000_000);
  assert.is((await topups(account)).length, 1);
});

test('a second event for the same payment (another event id) credits nothing more', async () => {
  const { account, checkoutId } = await withCheckout(15);
  await stripe.deliver(server.url, stripe.paid(checkoutId));
  const late = stripe.event('checkout.session.async_payment_succeeded', {
    ...stripe.sessions.get(checkoutId),
    payment_status: 'paid',
    amount_total: 1500,
    currency: 'usd',
  });
  assert.is((await stripe.deliver(server.url, late)).status, 200);
  assert.is(await balance(account), 15_000_000);
});

test('forged, altered, unsigned and stale deliveries are 400 invalid_signature and change nothing', async () => {
  const { account, checkoutId } = await withCheckout(30);
  const forged = stripe.event(
    'checkout.session.completed',
    { ...stripe.sessions.get(checkoutId), payment_status: 'paid', amount_total: 3000, currency: 'usd' },
    { secret: 'whsec_attacker_guess_000000' },
  );
  const genuine = stripe.paid(checkoutId);
  const attempts = [
    await stripe.deliver(server.url, forged),
    await stripe.deliver(server.url, genuine, {
      payload: genuine.payload.replace('"amount_total":3000', '"amount_total":3000000'),
    }),
    await stripe.deliver(server.url, genuine, { signature: null }),
    await stripe.deliver(server.url, genuine, { signature: 't=1,v1=deadbeef' }),
    await stripe.deliver(server.url, genuine, { payload: '{"not":"json"' }),
  ];
  for (const res of attempts) {
    assert.is(res.status, 400, JSON.stringify(res.body));
    assert.is(res.body.error.code, 'invalid_signature');
  }
  // Signed more than five minutes ago: refused as a replay.
  clock.advance(5 * 60_000 + 1000);
  const stale = await stripe.deliver(server.url, genuine);
  assert.is(stale.status, 400);
  assert.is(await balance(account), 0);
  // A valid signature of another body does not carry over.
  assert.is(
    (await stripe.deliver(server.url, { ...genuine, signature: stripe.event('ping', {}).signature })).status,
    400,
  );
  // The genuine event, signed now, still credits.
  const fresh = stripe.paid(checkoutId);
  assert.is((await stripe.deliver(server.url, fresh)).status, 200);
  assert.is(await balance(account), 30_000_000);
});

test('verified events that cannot be credited are acknowledged without moving money', async () => {
  const { account, checkoutId } = await withCheckout(12);
  const session = stripe.sessions.get(checkoutId)!;
  const cases = [
    stripe.paid(checkoutId, { currency: 'eur' }),
    stripe.paid(checkoutId, { payment_status: 'unpaid' }),
    stripe.paid(checkoutId, {
      metadata: { account_id: 'acct_nobody', purpose: 'topup' },
      client_reference_id: 'acct_nobody',
    }),
    stripe.paid(checkoutId, { amount_total: 0 }),
    stripe.event('invoice.paid', { id: 'in_1', object: 'invoice' }),
    stripe.event('checkout.session.completed', {
      ...session,
      metadata: { account_id: account.id, purpose: 'something-else' },
      payment_status: 'paid',
      amount_total: 1200,
      currency: 'usd',
    }),
  ];
  for (const event of cases) assert.is((await stripe.deliver(server.url, event)).status, 200);
  assert.is(await balance(account), 0);
});

test("a top-up for one account paid with another account's customer is not credited", async () => {
  const victim = await withCheckout(40);
  const other = await withCheckout(40);
  const otherCustomer = stripe.sessions.get(other.checkoutId)!.customer as string;
  assert.is(
    (await stripe.deliver(server.url, stripe.paid(victim.checkoutId, { customer: otherCustomer }))).status,
    200,
  );
  assert.is(await balance(victim.account), 0);
  assert.is(await balance(other.account), 0);
});

test.run();
