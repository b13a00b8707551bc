import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  AccountObjectSchema,
  AccountUsageObjectSchema,
  ApiTokenDeletedObjectSchema,
  EarlyAccessObjectSchema,
  EmailVerificationObjectSchema,
  EmailVerificationRequestedObjectSchema,
  PasswordResetObjectSchema,
  PasswordResetRequestedObjectSchema,
  TwoFactorObjectSchema,
  TwoFactorSetupObjectSchema,
  ApiTokenListObjectSchema,
  ApiTokenObjectSchema,
  CreatedApiTokenObjectSchema,
  KeyUsageObjectSchema,
  LoginSessionObjectSchema,
  SessionRevokedObjectSchema,
  SignedInObjectSchema,
} from '../protocols/account.js';
import {
  AdminAccountObjectSchema,
  AdminCreatedAccountObjectSchema,
  AdminCreditedObjectSchema,
  AdminEarlyAccessObjectSchema,
  AdminWaitlistObjectSchema,
  MachineDefinitionsObjectSchema,
} from '../protocols/admin.js';
import {
  AccountSubscriptionObjectSchema,
  AccountTierObjectSchema,
  CheckoutObjectSchema,
  PortalObjectSchema,
  SubscriptionObjectSchema,
  WebhookAckObjectSchema,
} from '../protocols/payments.js';
import { WaitlistCodeSentObjectSchema, WaitlistSignupObjectSchema } from '../protocols/waitlist.js';
import { totpCode } from '../actors/accounts/totp.js';
import type { RecordingMailer } from '../backends/mail/recording-mailer.js';
import { firstLink } from './doubles/smtp-inbox.js';
import { StripeDouble } from './doubles/stripe-double.js';
import { ModelCardSchema, ModelListObjectSchema } from '../protocols/models.js';
import { EstimateObjectSchema, PricingObjectSchema } from '../protocols/pricing.js';
import { ADMIN_KEY, chatBody, startServer, type TestServer } from './harness.js';
import { assertWire } from './wire-check.js';

const test = suite(
  'account wire: every account, token, usage, admin, model and pricing response matches its zod schema',
);

let server: TestServer;
let stripe: StripeDouble;

test.before(async () => {
  stripe = await StripeDouble.start();
  server = await startServer(stripe.env());
});

test.after(async () => {
  await server.close();
  await stripe.close();
});

test('register, login, overview, password change and logout', async () => {
  const email = `wire-${process.pid}@example.com`;
  const registered = assertWire(
    SignedInObjectSchema,
    await server.request('POST', '/v1/auth/register', { body: { email, password: 'wire-password-1' } }),
    201,
    'register',
  );
  const login = assertWire(
    SignedInObjectSchema,
    await server.request('POST', '/v1/auth/login', { body: { email, password: 'wire-password-1' } }),
    200,
    'login',
  );
  assert.is(login.account.id, registered.account.id);
  assertWire(AccountObjectSchema, await server.request('GET', '/v1/account', { token: login.token }), 200, 'overview');
  const rotated = assertWire(
    LoginSessionObjectSchema,
    await server.request('POST', '/v1/account/password', {
      token: login.token,
      body: { current_password: 'wire-password-1', new_password: 'wire-password-2' },
    }),
    200,
    'password',
  );
  assertWire(
    SessionRevokedObjectSchema,
    await server.request('POST', '/v1/auth/logout', { token: rotated.token }),
    200,
    'logout',
  );
});

test('tokens: list, create, change, delete; usage of the account and of a key', async () => {
  const account = await server.account(5);
  const created = assertWire(
    CreatedApiTokenObjectSchema,
    await server.request('POST', '/v1/account/tokens', {
      token: account.session,
      body: { label: 'wire', requests_per_minute: 60 },
    }),
    201,
    'create',
  );
  const list = assertWire(
    ApiTokenListObjectSchema,
    await server.request('GET', '/v1/account/tokens', { token: account.session }),
    200,
    'list',
  );
  assert.is(list.data.length, 2);
  assertWire(
    ApiTokenObjectSchema,
    await server.request('PATCH', `/v1/account/tokens/${created.id}`, {
      token: account.session,
      body: { enabled: false, requests_per_minute: null },
    }),
    200,
    'patch',
  );
  assertWire(
    ApiTokenDeletedObjectSchema,
    await server.request('DELETE', `/v1/account/tokens/${created.id}`, { token: account.session }),
    200,
    'delete',
  );

  // A charge, so the usage lists a charge entry beside the opening top-up.
  assert.is(
    (
      await server.request('POST', '/v1/chat/completions', {
        token: account.token,
        body: chatBody('Count the wombats'),
      })
    ).status,
    200,
  );
  const usage = assertWire(
    AccountUsageObjectSchema,
    await server.request('GET', '/v1/account/usage', { token: account.token }),
    200,
    'account usage',
  );
  assert.equal(usage.recent.map((entry) => entry.type).sort(), ['charge', 'topup']);
  const key = assertWire(
    KeyUsageObjectSchema,
    await server.request('GET', '/v1/usage', { token: account.token }),
    200,
    'key usage',
  );
  assert.ok(key.requests >= 2);
});

test('the admin API: create, read, credit, suspend, machine definitions', async () => {
  const created = assertWire(
    AdminCreatedAccountObjectSchema,
    await server.request('POST', '/admin/v1/accounts', {
      token: ADMIN_KEY,
      body: { email: `admin-wire-${process.pid}@example.com`, credit_usd: 1.5 },
    }),
    201,
    'create',
  );
  const id = created.account.id;
  assertWire(
    AdminAccountObjectSchema,
    await server.request('GET', `/admin/v1/accounts/${id}`, { token: ADMIN_KEY }),
    200,
    'read',
  );
  assertWire(
    AdminCreditedObjectSchema,
    await server.request('POST', `/admin/v1/accounts/${id}/credit`, { token: ADMIN_KEY, body: { usd: 2 } }),
    200,
    'credit',
  );
  const suspended = assertWire(
    AdminAccountObjectSchema,
    await server.request('POST', `/admin/v1/accounts/${id}/status`, {
      token: ADMIN_KEY,
      body: { status: 'suspended' },
    }),
    200,
    'status',
  );
  assert.is(suspended.account.status, 'suspended');
  assertWire(
    MachineDefinitionsObjectSchema,
    await server.request('GET', '/admin/v1/machines', { token: ADMIN_KEY }),
    200,
    'machines',
  );
});

test('models, the tariff and an estimate', async () => {
  const account = await server.account(1);
  const models = assertWire(
    ModelListObjectSchema,
    await server.request('GET', '/v1/models', { token: account.token }),
    200,
    'models',
  );
  assertWire(
    ModelCardSchema,
    await server.request('GET', `/v1/models/${models.data[1]!.id}`, { token: account.token }),
    200,
    'model card',
  );
  assertWire(PricingObjectSchema, await server.request('GET', '/v1/pricing'), 200, 'pricing');
  assertWire(
    EstimateObjectSchema,
    await server.request('POST', '/v1/estimate', {
      body: { model: 'pro-1', messages: [{ role: 'user', content: 'Plan a trip, then check it.' }] },
    }),
    200,
    'estimate',
  );
});

test('recovery and two-factor: reset, verification, 2FA setup, enable and disable', async () => {
  const account = await server.account(0);
  const mailer = server.app.deps.mailer as RecordingMailer;
  const settled = () => server.app.deps.accounts.background.settled();
  await server.request('POST', `/admin/v1/accounts/${account.id}/tier`, { token: ADMIN_KEY, body: { tier: 'auto' } });
  assertWire(
    EmailVerificationRequestedObjectSchema,
    await server.request('POST', '/v1/account/email-verification/request', { token: account.session }),
    200,
    'verification request',
  );
  assertWire(
    AccountTierObjectSchema,
    await server.request('GET', '/v1/account/tier', { token: account.session }),
    200,
    'tier',
  );
  await settled();
  const verifyToken = firstLink(mailer.messages(account.email).at(-1)!.text).searchParams.get('token');
  assertWire(
    EmailVerificationObjectSchema,
    await server.request('POST', '/v1/account/email-verification/confirm', { body: { token: verifyToken } }),
    200,
    'verification confirm',
  );
  assertWire(
    PasswordResetRequestedObjectSchema,
    await server.request('POST', '/v1/account/password-reset/request', { body: { email: account.email } }),
    200,
    'reset request',
  );
  await settled();
  const resetToken = firstLink(mailer.messages(account.email).at(-1)!.text).searchParams.get('token');
  assertWire(
    PasswordResetObjectSchema,
    await server.request('POST', '/v1/account/password-reset/confirm', {
      body: { token: resetToken, new_password: 'wire-password-3' },
    }),
    200,
    'reset confirm',
  );
  const session = (
    await server.request('POST', '/v1/auth/login', { body: { email: account.email, password: 'wire-password-3' } })
  ).body.token as string;
  const setup = assertWire(
    TwoFactorSetupObjectSchema,
    await server.request('POST', '/v1/account/2fa/setup', { token: session }),
    200,
    '2fa setup',
  );
  const enabled = assertWire(
    TwoFactorObjectSchema,
    await server.request('POST', '/v1/account/2fa/enable', {
      token: session,
      body: { code: totpCode(setup.secret, Date.now()) },
    }),
    200,
    '2fa enable',
  );
  assertWire(
    TwoFactorObjectSchema,
    await server.request('POST', '/v1/account/2fa/disable', {
      token: session,
      body: { password: 'wire-password-3', code: enabled.recovery_codes![0] },
    }),
    200,
    '2fa disable',
  );
  assertWire(
    EarlyAccessObjectSchema,
    await server.request('GET', '/v1/early-access', { token: session }),
    200,
    'early access',
  );
  assertWire(
    AdminEarlyAccessObjectSchema,
    await server.request('POST', `/admin/v1/accounts/${account.id}/early-access`, {
      token: ADMIN_KEY,
      body: { product: 'marketplace' },
    }),
    200,
    'grant',
  );
});

test('payments, subscriptions and the waitlist', async () => {
  const account = await server.account(0);
  const checkout = assertWire(
    CheckoutObjectSchema,
    await server.request('POST', '/v1/account/checkout', { token: account.session, body: { amount_usd: 5 } }),
    201,
    'checkout',
  );
  const ack = await stripe.deliver(server.url, stripe.paid(checkout.id));
  assertWire(WebhookAckObjectSchema, ack, 200, 'webhook');
  assertWire(
    AccountSubscriptionObjectSchema,
    await server.request('GET', '/v1/account/subscription', { token: account.session }),
    200,
    'subscription',
  );
  const subCheckout = assertWire(
    CheckoutObjectSchema,
    await server.request('POST', '/v1/account/subscription/checkout', {
      token: account.session,
      body: { plan: 'plus-2026-07' },
    }),
    201,
    'subscription checkout',
  );
  const done = stripe.subscribed(subCheckout.id);
  await stripe.deliver(server.url, done.checkout);
  await stripe.deliver(server.url, done.created);
  assertWire(
    SubscriptionObjectSchema,
    await server.request('POST', '/v1/account/subscription/change', {
      token: account.session,
      body: { plan: 'team-2026-07' },
    }),
    202,
    'change',
  );
  assertWire(
    SubscriptionObjectSchema,
    await server.request('POST', '/v1/account/subscription/cancel', { token: account.session }),
    202,
    'cancel',
  );
  assertWire(
    PortalObjectSchema,
    await server.request('POST', '/v1/account/subscription/portal', { token: account.session }),
    200,
    'portal',
  );
  const email = `wire-wait-${process.pid}@example.com`;
  assertWire(
    WaitlistCodeSentObjectSchema,
    await server.request('POST', '/v1/waitlist/request', { body: { product: 'marketplace', email } }),
    202,
    'waitlist request',
  );
  await server.app.deps.accounts.background.settled();
  const code = /\b(\d{6})\b/.exec((server.app.deps.mailer as RecordingMailer).messages(email)[0]!.text)![1];
  assertWire(
    WaitlistSignupObjectSchema,
    await server.request('POST', '/v1/waitlist/verify', { body: { product: 'marketplace', email, code } }),
    200,
    'waitlist verify',
  );
  assertWire(
    AdminWaitlistObjectSchema,
    await server.request('GET', '/admin/v1/waitlist', { token: ADMIN_KEY }),
    200,
    'admin waitlist',
  );
});

test.run();
