import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { totpCode } from '../actors/accounts/totp.js';
import { SimulatedClock } from '../runtime/clock.js';
import { firstLink, SmtpInbox } from './doubles/smtp-inbox.js';
import { StripeDouble } from './doubles/stripe-double.js';
import { startServer, type TestServer } from './harness.js';

const test = suite('account journey: a new user registers, verifies, turns on 2FA, pays and calls the API');
const clock = new SimulatedClock(Date.UTC(2026, 6, 1, 9));
let inbox: SmtpInbox;
let stripe: StripeDouble;
let server: TestServer;

test.before(async () => {
  inbox = await SmtpInbox.start();
  stripe = await StripeDouble.start(() => clock.now());
  server = await startServer(
    { SVC_SMTP_URL: inbox.url, SVC_PUBLIC_URL: 'https://app.svc.test', ...stripe.env() },
    { clock },
  );
});
test.after(async () => {
  await server.close();
  await stripe.close();
  await inbox.close();
});

test('register → verify the e-mail from the received mail → enable 2FA → log in with a code → fund through checkout and a signed webhook → a billable chat call with the SDK', async () => {
  const email = `journey-${process.pid}@example.com`;
  const password = 'a long journey password';

  // 1. Register: a session, a balance of 0, the free tier, nothing verified.
  const registered = await server.request('POST', '/v1/auth/register', { body: { email, password } });
  assert.is(registered.status, 201);
  assert.is(registered.body.account.email_verified, false);
  assert.is(registered.body.account.tier, 'free');
  assert.is(registered.body.account.balance_usd, 0);
  let session: string = registered.body.token;

  // 2. Verify the address by following the link in the mail that really arrives over SMTP.
  const asked = await server.request('POST', '/v1/account/email-verification/request', { token: session });
  assert.is(asked.status, 200);
  assert.is(asked.body.status, 'sent');
  const mail = await inbox.waitFor((m) => m.to.includes(email) && m.headers['x-svc-mail'] === 'email_verification');
  const link = firstLink(mail.text);
  assert.is(link.origin + link.pathname, 'https://app.svc.test/account/verify-email');
  const confirmed = await server.request('POST', '/v1/account/email-verification/confirm', {
    body: { token: link.searchParams.get('token') },
  });
  assert.is(confirmed.status, 200, JSON.stringify(confirmed.body));
  assert.is((await server.request('GET', '/v1/account', { token: session })).body.email_verified, true);

  // 3. Turn two-factor on: the secret (with its URI and QR code), a code, ten recovery codes once.
  const setup = await server.request('POST', '/v1/account/2fa/setup', { token: session });
  assert.is(setup.status, 200);
  assert.match(setup.body.otpauth_uri, /^otpauth:\/\/totp\/svc:/);
  const png = Buffer.from(setup.body.qr_code_png.replace(/^data:image\/png;base64,/, ''), 'base64');
  assert.equal([...png.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  const enabled = await server.request('POST', '/v1/account/2fa/enable', {
    token: session,
    body: { code: totpCode(setup.body.secret, clock.now()) },
  });
  assert.is(enabled.status, 200, JSON.stringify(enabled.body));
  assert.is(enabled.body.recovery_codes.length, 10);

  // 4. Log in: the password alone asks for the second factor; with the next code it opens a session.
  const first = await server.request('POST', '/v1/auth/login', { body: { email, password } });
  assert.is(first.status, 401);
  assert.is(first.body.error.code, 'second_factor_required');
  clock.advance(30_000);
  const login = await server.request('POST', '/v1/auth/login', {
    body: { email, password, totp_code: totpCode(setup.body.secret, clock.now()) },
  });
  assert.is(login.status, 200, JSON.stringify(login.body));
  assert.is(login.body.account.two_factor_enabled, true);
  session = login.body.token;

  // 5. Fund the balance: a hosted checkout at the provider, then its signed webhook credits it.
  const checkout = await server.request('POST', '/v1/account/checkout', { token: session, body: { amount_usd: 10 } });
  assert.is(checkout.status, 201, JSON.stringify(checkout.body));
  assert.match(checkout.body.url, /^https:\/\/checkout\.double\.test\//);
  const created = stripe.requests.find((r) => r.path === '/v1/checkout/sessions')!;
  assert.is(created.form.line_items[0].price_data.unit_amount, '1000');
  assert.is(created.form.metadata.account_id, registered.body.account.id);
  const delivered = await stripe.deliver(server.url, stripe.paid(checkout.body.id));
  assert.is(delivered.status, 200, JSON.stringify(delivered.body));
  const usage = await server.request('GET', '/v1/account/usage', { token: session });
  assert.is(usage.body.balance_usd, 10);
  assert.is(usage.body.recent[0].type, 'topup');
  assert.is(usage.body.recent[0].amount_usd, 10);
  assert.is((await server.request('GET', '/v1/account/tier', { token: session })).body.tier, 'tier-1');

  // 6. An API token, then a billable call with the official SDK, charged exactly.
  const token = await server.request('POST', '/v1/account/tokens', { token: session, body: { label: 'journey' } });
  assert.is(token.status, 201);
  const completion = await server.openai(token.body.token).chat.completions.create({
    model: 'pro-1',
    messages: [{ role: 'user', content: 'Hello from a paying user' }],
    max_tokens: 32,
  });
  const price = (completion as unknown as { svc: { price_usd: number } }).svc.price_usd;
  assert.ok(price > 0);
  const after = await server.request('GET', '/v1/account', { token: session });
  assert.is(Math.round(after.body.balance_usd * 1e6), 10_000_000 - Math.round(price * 1e6));
});

test.run();
