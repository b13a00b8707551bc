import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { RecordingMailer } from '../backends/mail/recording-mailer.js';
import { SimulatedClock } from '../runtime/clock.js';
import { firstLink } from './doubles/smtp-inbox.js';
import { startServer, type TestServer } from './harness.js';

const test = suite('account: e-mail verification by mailed single-use link');
const clock = new SimulatedClock(Date.UTC(2026, 6, 1));
let server: TestServer;
let mailer: RecordingMailer;

const verifyMails = (to: string) => mailer.messages(to).filter((m) => m.kind === 'email_verification');

async function ask(session: string) {
  const res = await server.request('POST', '/v1/account/email-verification/request', { token: session });
  await server.app.deps.accounts.background.settled();
  return res;
}

test.before(async () => {
  server = await startServer({}, { clock });
  mailer = server.app.deps.mailer as RecordingMailer;
});
test.after(() => server.close());

test('the link confirms the address once; GET /v1/account shows email_verified', async () => {
  const account = await server.account(0);
  assert.is((await server.request('GET', '/v1/account', { token: account.session })).body.email_verified, false);
  const asked = await ask(account.session);
  assert.is(asked.status, 200);
  assert.is(asked.body.status, 'sent');
  assert.is(asked.body.expires_at, Math.floor(clock.now() / 1000) + 172_800);
  const token = firstLink(verifyMails(account.email)[0]!.text).searchParams.get('token')!;
  const confirmed = await server.request('POST', '/v1/account/email-verification/confirm', { body: { token } });
  assert.equal(confirmed.body, { object: 'email_verification', email: account.email, email_verified: true });
  assert.is((await server.request('GET', '/v1/account', { token: account.token })).body.email_verified, true);
  const replay = await server.request('POST', '/v1/account/email-verification/confirm', { body: { token } });
  assert.is(replay.status, 409);
  assert.is(replay.body.error.code, 'token_used');
  // Once verified, asking again sends nothing.
  const again = await ask(account.session);
  assert.equal(again.body, { object: 'email_verification.request', status: 'already_verified', expires_at: null });
  assert.is(verifyMails(account.email).length, 1);
});

test('resends are allowed (any unexpired link works) and limited to five an hour', async () => {
  const account = await server.account(0);
  for (let i = 0; i < 5; i++) assert.is((await ask(account.session)).status, 200);
  const sixth = await ask(account.session);
  assert.is(sixth.status, 429);
  assert.is(sixth.body.error.code, 'rate_limit_exceeded');
  assert.ok(sixth.headers.get('retry-after'));
  const mails = verifyMails(account.email);
  assert.is(mails.length, 5);
  const older = firstLink(mails[1]!.text).searchParams.get('token')!;
  assert.is(
    (await server.request('POST', '/v1/account/email-verification/confirm', { body: { token: older } })).status,
    200,
  );
});

test('an expired link fails clearly', async () => {
  const account = await server.account(0);
  await ask(account.session);
  const token = firstLink(verifyMails(account.email)[0]!.text).searchParams.get('token')!;
  clock.advance(172_800_000 + 1);
  const res = await server.request('POST', '/v1/account/email-verification/confirm', { body: { token } });
  assert.is(res.status, 400);
  assert.is(res.body.error.code, 'token_expired');
});

test('a reset token is not a verification token, and unknown tokens are refused', async () => {
  const account = await server.account(0);
  await server.request('POST', '/v1/account/password-reset/request', { body: { email: account.email } });
  await server.app.deps.accounts.background.settled();
  const resetToken = firstLink(
    mailer.messages(account.email).find((m) => m.kind === 'password_reset')!.text,
  ).searchParams.get('token')!;
  const crossed = await server.request('POST', '/v1/account/email-verification/confirm', {
    body: { token: resetToken },
  });
  assert.is(crossed.status, 400);
  assert.is(crossed.body.error.code, 'invalid_token');
  assert.is(
    (await server.request('POST', '/v1/account/email-verification/confirm', { body: { token: 'emv_nothing' } })).body
      .error.code,
    'invalid_token',
  );
});

test('who may ask, and bad bodies', async () => {
  const account = await server.account(0);
  assert.is(
    (await server.request('POST', '/v1/account/email-verification/request')).body.error.code,
    'missing_authorization',
  );
  assert.is(
    (await server.request('POST', '/v1/account/email-verification/request', { token: account.token })).body.error.code,
    'session_required',
  );
  assert.is(
    (await server.request('POST', '/v1/account/email-verification/request', { token: 'sess_forged' })).status,
    401,
  );
  assert.is(
    (await server.request('POST', '/v1/account/email-verification/request', { token: account.session, body: [] }))
      .status,
    422,
  );
  for (const body of [{}, { token: 7 }, { token: '' }]) {
    assert.is(
      (await server.request('POST', '/v1/account/email-verification/confirm', { body })).status,
      422,
      JSON.stringify(body),
    );
  }
});

test.run();
