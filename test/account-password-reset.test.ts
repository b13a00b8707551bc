import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { RecordingMailer } from '../backends/mail/recording-mailer.js';
import { SimulatedClock } from '../runtime/clock.js';
import { firstLink } from './doubles/smtp-inbox.js';
import { startServer, type TestServer } from './harness.js';

const test = suite('account: password reset by mailed single-use link');
const clock = new SimulatedClock(Date.UTC(2026, 6, 1));
let server: TestServer;
let mailer: RecordingMailer;

const settled = () => server.app.deps.accounts.background.settled();
const resetMails = (to: string) => mailer.messages(to).filter((m) => m.kind === 'password_reset');
const tokenOf = (text: string) => firstLink(text).searchParams.get('token')!;

async function requestReset(email: string) {
  const res = await server.request('POST', '/v1/account/password-reset/request', { body: { email } });
  await settled();
  return res;
}

test.before(async () => {
  server = await startServer({ SVC_PUBLIC_URL: 'https://app.svc.test' }, { clock });
  mailer = server.app.deps.mailer as RecordingMailer;
});
test.after(() => server.close());

test('an unknown address gets the very same answer and no mail is sent', async () => {
  const before = mailer.messages().length;
  const unknown = await requestReset('nobody-here@example.com');
  const account = await server.account(0);
  const known = await requestReset(account.email);
  assert.is(unknown.status, 200);
  assert.equal(unknown.body, known.body);
  assert.equal(unknown.body, { object: 'password_reset.request', status: 'ok' });
  assert.equal(mailer.messages('nobody-here@example.com'), []);
  assert.is(mailer.messages().length, before + 1);
});

test('the link resets the password, ends every session, proves the address, and works once', async () => {
  const account = await server.account(1);
  await requestReset(account.email);
  const [mail] = resetMails(account.email);
  assert.ok(mail, 'a reset mail');
  assert.ok(mail.text.includes('https://app.svc.test/account/reset-password?token='));
  const token = tokenOf(mail.text);
  const done = await server.request('POST', '/v1/account/password-reset/confirm', {
    body: { token, new_password: 'a brand new password' },
  });
  assert.is(done.status, 200, JSON.stringify(done.body));
  assert.equal(done.body, { object: 'password_reset', status: 'completed', sessions_revoked: true });
  // Every session ended; API tokens keep working (they are not sessions).
  assert.is((await server.request('GET', '/v1/account', { token: account.session })).status, 401);
  assert.is((await server.request('GET', '/v1/account', { token: account.token })).body.email_verified, true);
  assert.is(
    (await server.request('POST', '/v1/auth/login', { body: { email: account.email, password: account.password } }))
      .status,
    401,
  );
  assert.is(
    (
      await server.request('POST', '/v1/auth/login', {
        body: { email: account.email, password: 'a brand new password' },
      })
    ).status,
    200,
  );
  const replay = await server.request('POST', '/v1/account/password-reset/confirm', {
    body: { token, new_password: 'another new password' },
  });
  assert.is(replay.status, 409);
  assert.is(replay.body.error.code, 'token_used');
});

test('an expired link fails clearly and changes nothing', async () => {
  const account = await server.account(0);
  await requestReset(account.email);
  const token = tokenOf(resetMails(account.email)[0]!.text);
  clock.advance(30 * 60_000 + 1);
  const res = await server.request('POST', '/v1/account/password-reset/confirm', {
    body: { token, new_password: 'too late password' },
  });
  assert.is(res.status, 400);
  assert.is(res.body.error.code, 'token_expired');
  assert.is((await server.request('GET', '/v1/account', { token: account.session })).status, 200);
});

test('a link sent before a password change is void after it', async () => {
  const account = await server.account(0);
  await requestReset(account.email);
  const token = tokenOf(resetMails(account.email)[0]!.text);
  const changed = await server.request('POST', '/v1/account/password', {
    token: account.session,
    body: { current_password: account.password, new_password: 'changed meanwhile' },
  });
  assert.is(changed.status, 200);
  const res = await server.request('POST', '/v1/account/password-reset/confirm', {
    body: { token, new_password: 'attacker password' },
  });
  assert.is(res.status, 400);
  assert.is(res.body.error.code, 'token_expired');
});

test('unknown and malformed tokens, and bad bodies', async () => {
  const unknown = await server.request('POST', '/v1/account/password-reset/confirm', {
    body: { token: 'pwr_not-a-real-token', new_password: 'whatever password' },
  });
  assert.is(unknown.status, 400);
  assert.is(unknown.body.error.code, 'invalid_token');
  const cases: [string, unknown][] = [
    ['/v1/account/password-reset/request', {}],
    ['/v1/account/password-reset/request', { email: 'not an address' }],
    ['/v1/account/password-reset/request', { email: 42 }],
    ['/v1/account/password-reset/confirm', { token: 'x' }],
    ['/v1/account/password-reset/confirm', { token: 'x', new_password: 'short' }],
    ['/v1/account/password-reset/confirm', { token: '', new_password: 'long enough here' }],
    ['/v1/account/password-reset/confirm', { token: 'x'.repeat(201), new_password: 'long enough here' }],
  ];
  for (const [path, body] of cases) {
    const res = await server.request('POST', path, { body });
    assert.is(res.status, 422, `${path} ${JSON.stringify(body)}`);
    assert.ok(Array.isArray(res.body.detail));
  }
  assert.is(
    (
      await server.request('POST', '/v1/account/password-reset/request', {
        raw: 'nope',
        headers: { 'content-type': 'application/json' },
      })
    ).status,
    400,
  );
});

test('per address: past three an hour the answer stays ok but nothing more is sent', async () => {
  const account = await server.account(0);
  for (let i = 0; i < 5; i++) assert.is((await requestReset(account.email)).status, 200);
  assert.is(resetMails(account.email).length, 3);
  clock.advance(3_600_000);
  await requestReset(account.email);
  assert.is(resetMails(account.email).length, 4);
});

test('per client address: past twenty an hour it is 429 with Retry-After', async () => {
  clock.advance(2 * 3_600_000);
  let last = { status: 0, headers: new Headers(), body: null as any };
  for (let i = 0; i < 21; i++) last = await requestReset(`flood-${i}@example.com`);
  assert.is(last.status, 429);
  assert.is(last.body.error.code, 'rate_limit_exceeded');
  assert.ok(Number(last.headers.get('retry-after')) >= 1);
});

test.run();
