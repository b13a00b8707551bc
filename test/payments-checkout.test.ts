import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CheckoutObjectSchema } from '../protocols/payments.js';
import { SimulatedClock } from '../runtime/clock.js';
import { StripeDouble, STRIPE_TEST_KEY } from './doubles/stripe-double.js';
import { startServer, type TestServer } from './harness.js';

const test = suite('payments: top-up checkout through the stripe SDK against a provider double');
const clock = new SimulatedClock(Date.UTC(2026, 6, 1));
let stripe: StripeDouble;
let server: TestServer;
let off: TestServer;

test.before(async () => {
  stripe = await StripeDouble.start(() => clock.now());
  server = await startServer({ ...stripe.env(), SVC_PUBLIC_URL: 'https://app.svc.test' }, { clock });
  off = await startServer();
});
test.after(async () => {
  await server.close();
  await off.close();
  await stripe.close();
});

test('a checkout opens at the provider with the amount in cents, the account and our return URLs', async () => {
  const account = await server.account(0);
  const res = await server.request('POST', '/v1/account/checkout', {
    token: account.session,
    body: { amount_usd: 25.5 },
  });
  assert.is(res.status, 201, JSON.stringify(res.body));
  const checkout = CheckoutObjectSchema.parse(res.body);
  assert.is(checkout.purpose, 'topup');
  assert.is(checkout.amount_usd, 25.5);
  assert.is(checkout.plan, null);
  const sent = stripe.requests.filter((r) => r.path === '/v1/checkout/sessions').at(-1)!;
  assert.is(sent.authorization, `Bearer ${STRIPE_TEST_KEY}`);
  assert.is(sent.form.mode, 'payment');
  assert.is(sent.form.line_items[0].price_data.unit_amount, '2550');
  assert.is(sent.form.line_items[0].price_data.currency, 'usd');
  assert.is(sent.form.client_reference_id, account.id);
  assert.equal(sent.form.metadata, { account_id: account.id, purpose: 'topup' });
  assert.is(
    sent.form.success_url,
    'https://app.svc.test/account/billing?checkout=success&session_id={CHECKOUT_SESSION_ID}',
  );
  assert.ok(sent.idempotencyKey, 'an idempotency key goes to the provider');
  // The customer is created once per account.
  await server.request('POST', '/v1/account/checkout', { token: account.session, body: { amount_usd: 5 } });
  assert.is(
    stripe.requests.filter((r) => r.path === '/v1/customers' && r.form.metadata?.account_id === account.id).length,
    1,
  );
  // Nothing is credited by opening a checkout.
  assert.is((await server.request('GET', '/v1/account', { token: account.session })).body.balance_usd, 0);
});

test('the same Idempotency-Key and amount give the same checkout; another amount gives another', async () => {
  const account = await server.account(0);
  const headers = { 'idempotency-key': 'topup-once' };
  const first = await server.request('POST', '/v1/account/checkout', {
    token: account.session,
    body: { amount_usd: 10 },
    headers,
  });
  const again = await server.request('POST', '/v1/account/checkout', {
    token: account.session,
    body: { amount_usd: 10 },
    headers,
  });
  const other = await server.request('POST', '/v1/account/checkout', {
    token: account.session,
    body: { amount_usd: 11 },
    headers,
  });
  assert.is(first.body.id, again.body.id);
  assert.is.not(first.body.id, other.body.id);
});

test('amounts outside the documented bounds, and other bad bodies, are 422 before the provider is called', async () => {
  const account = await server.account(0);
  const calls = stripe.requests.length;
  for (const body of [
    {},
    { amount_usd: 4.99 },
    { amount_usd: 10_000.01 },
    { amount_usd: 10.001 },
    { amount_usd: '10' },
    { amount_usd: null },
    { amount_usd: -5 },
  ]) {
    const res = await server.request('POST', '/v1/account/checkout', { token: account.session, body });
    assert.is(res.status, 422, JSON.stringify(body));
    assert.is(res.body.detail[0].loc[1], 'amount_usd');
  }
  assert.is(stripe.requests.length, calls);
});

test('it takes the session token only', async () => {
  const account = await server.account(0);
  assert.is(
    (await server.request('POST', '/v1/account/checkout', { body: { amount_usd: 10 } })).body.error.code,
    'missing_authorization',
  );
  assert.is(
    (await server.request('POST', '/v1/account/checkout', { token: account.token, body: { amount_usd: 10 } })).body
      .error.code,
    'session_required',
  );
  assert.is(
    (await server.request('POST', '/v1/account/checkout', { token: 'sess_forged', body: { amount_usd: 10 } })).body
      .error.code,
    'invalid_api_key',
  );
});

test('a failing provider is 502 in the envelope and nothing is left half-done', async () => {
  const account = await server.account(0);
  await server.request('POST', '/v1/account/checkout', { token: account.session, body: { amount_usd: 5 } });
  stripe.failNext(500, 3);
  const res = await server.request('POST', '/v1/account/checkout', {
    token: account.session,
    body: { amount_usd: 10 },
  });
  assert.is(res.status, 502);
  assert.is(res.body.error.code, 'payment_provider_error');
  assert.not.match(JSON.stringify(res.body), /sk_test|double: injected/);
});

test('without a configured provider the checkout is 503 in the envelope, and no webhook route exists', async () => {
  const account = await off.account(0);
  const res = await off.request('POST', '/v1/account/checkout', { token: account.session, body: { amount_usd: 10 } });
  assert.is(res.status, 503);
  assert.is(res.body.error.code, 'payments_not_configured');
  assert.is(res.body.error.type, 'server_error');
  assert.ok(res.headers.get('x-request-id'));
  assert.is(
    (await off.request('POST', '/v1/account/checkout', { token: account.session, body: { amount_usd: 1 } })).status,
    422,
  );
  assert.is((await off.request('POST', '/v1/webhooks/stripe', { body: {} })).status, 404);
});

test.run();
