import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { totpCode } from '../actors/accounts/totp.js';
import { SimulatedClock } from '../runtime/clock.js';
import { startServer, type TestAccount, type TestServer } from './harness.js';

const test = suite('auth: two-factor authentication with TOTP and recovery codes');
const clock = new SimulatedClock(Date.UTC(2026, 6, 1));
let server: TestServer;

const STEP = 30_000;

/** An account with two-factor on: its secret and recovery codes. */
async function withTwoFactor(): Promise<TestAccount & { secret: string; recovery: string[] }> {
  const account = await server.account(0);
  const setup = await server.request('POST', '/v1/account/2fa/setup', { token: account.session });
  const enabled = await server.request('POST', '/v1/account/2fa/enable', {
    token: account.session,
    body: { code: totpCode(setup.body.secret, clock.now()) },
  });
  assert.is(enabled.status, 200, JSON.stringify(enabled.body));
  clock.advance(STEP);
  return { ...account, secret: setup.body.secret, recovery: enabled.body.recovery_codes };
}

const login = (account: TestAccount, extra: Record<string, unknown> = {}) =>
  server.request('POST', '/v1/auth/login', { body: { email: account.email, password: account.password, ...extra } });

test.before(async () => {
  server = await startServer({}, { clock });
});
test.after(() => server.close());

test('setup returns the secret three ways; enable needs a current code; the overview shows it', async () => {
  const account = await server.account(0);
  const setup = await server.request('POST', '/v1/account/2fa/setup', { token: account.session });
  assert.is(setup.status, 200);
  assert.equal(Object.keys(setup.body).sort(), [
    'algorithm',
    'digits',
    'object',
    'otpauth_uri',
    'period',
    'qr_code_png',
    'secret',
  ]);
  assert.match(setup.body.secret, /^[A-Z2-7]{32}$/);
  assert.ok(setup.body.otpauth_uri.includes(`secret=${setup.body.secret}`));
  assert.match(setup.body.qr_code_png, /^data:image\/png;base64,/);
  const wrong = await server.request('POST', '/v1/account/2fa/enable', {
    token: account.session,
    body: { code: totpCode(setup.body.secret, clock.now() - 10 * STEP) },
  });
  assert.is(wrong.status, 400);
  assert.is(wrong.body.error.code, 'invalid_code');
  const enabled = await server.request('POST', '/v1/account/2fa/enable', {
    token: account.session,
    body: { code: totpCode(setup.body.secret, clock.now()) },
  });
  assert.is(enabled.body.enabled, true);
  assert.is(enabled.body.recovery_codes_remaining, 10);
  assert.is(new Set(enabled.body.recovery_codes).size, 10);
  assert.is((await server.request('GET', '/v1/account', { token: account.session })).body.two_factor_enabled, true);
  const again = await server.request('POST', '/v1/account/2fa/setup', { token: account.session });
  assert.is(again.status, 409);
  assert.is(again.body.error.code, 'two_factor_enabled');
});

test('enable without setup is 409; disable when off is 409', async () => {
  const account = await server.account(0);
  const enable = await server.request('POST', '/v1/account/2fa/enable', {
    token: account.session,
    body: { code: '123456' },
  });
  assert.is(enable.status, 409);
  assert.is(enable.body.error.code, 'two_factor_setup_required');
  const disable = await server.request('POST', '/v1/account/2fa/disable', {
    token: account.session,
    body: { password: account.password, code: '123456' },
  });
  assert.is(disable.status, 409);
  assert.is(disable.body.error.code, 'two_factor_not_enabled');
});

test('login is two steps: second_factor_required, then the code; a code is accepted once', async () => {
  const account = await withTwoFactor();
  const first = await login(account);
  assert.is(first.status, 401);
  assert.is(first.body.error.code, 'second_factor_required');
  assert.is(first.body.error.param, 'totp_code');
  // A wrong password says nothing about the second factor.
  assert.is(
    (await server.request('POST', '/v1/auth/login', { body: { email: account.email, password: 'wrong password!' } }))
      .body.error.code,
    'invalid_credentials',
  );
  const code = totpCode(account.secret, clock.now());
  const ok = await login(account, { totp_code: code });
  assert.is(ok.status, 200, JSON.stringify(ok.body));
  assert.match(ok.body.token, /^sess_/);
  const replay = await login(account, { totp_code: code });
  assert.is(replay.status, 401);
  assert.is(replay.body.error.code, 'invalid_second_factor');
  // A code from an earlier step than the one used is a replay too.
  clock.advance(STEP);
  assert.is(
    (await login(account, { totp_code: totpCode(account.secret, clock.now() - STEP) })).body.error.code,
    'invalid_second_factor',
  );
  assert.is((await login(account, { totp_code: totpCode(account.secret, clock.now()) })).status, 200);
});

test('the same code sent twice at once opens one session; the same recovery code twice at once too', async () => {
  const account = await withTwoFactor();
  const code = totpCode(account.secret, clock.now());
  const logins = await Promise.all(Array.from({ length: 4 }, () => login(account, { totp_code: code })));
  assert.equal(logins.map((r) => r.status).sort(), [200, 401, 401, 401], JSON.stringify(logins.map((r) => r.body)));
  assert.ok(logins.filter((r) => r.status === 401).every((r) => r.body.error.code === 'invalid_second_factor'));
  const recovery = await Promise.all([0, 1].map(() => login(account, { recovery_code: account.recovery[5] })));
  assert.equal(recovery.map((r) => r.status).sort(), [200, 401]);
  const status = await server.request('GET', '/v1/account', {
    token: logins.find((r) => r.status === 200)!.body.token,
  });
  assert.is(status.body.two_factor_enabled, true);
});

test('a recovery code logs in once (any case, dashes optional), then is spent', async () => {
  const account = await withTwoFactor();
  const code = account.recovery[3]!;
  const ok = await login(account, { recovery_code: code.toUpperCase().replace(/-/g, '') });
  assert.is(ok.status, 200, JSON.stringify(ok.body));
  const again = await login(account, { recovery_code: code });
  assert.is(again.status, 401);
  assert.is(again.body.error.code, 'invalid_second_factor');
  assert.is(again.body.error.param, 'recovery_code');
});

test('wrong codes are limited: after five, 429 even for the right code, until the window passes', async () => {
  const account = await withTwoFactor();
  for (let i = 0; i < 5; i++)
    assert.is((await login(account, { totp_code: '000000' })).body.error.code, 'invalid_second_factor');
  const limited = await login(account, { totp_code: totpCode(account.secret, clock.now()) });
  assert.is(limited.status, 429);
  assert.ok(limited.headers.get('retry-after'));
  clock.advance(15 * 60_000);
  assert.is((await login(account, { totp_code: totpCode(account.secret, clock.now()) })).status, 200);
});

test('disable needs the password and a code (or a recovery code); then login is one step again', async () => {
  const account = await withTwoFactor();
  const badPassword = await server.request('POST', '/v1/account/2fa/disable', {
    token: account.session,
    body: { password: 'not the password', code: totpCode(account.secret, clock.now()) },
  });
  assert.is(badPassword.status, 401);
  assert.is(badPassword.body.error.code, 'invalid_credentials');
  const badCode = await server.request('POST', '/v1/account/2fa/disable', {
    token: account.session,
    body: { password: account.password, code: '999999' },
  });
  assert.is(badCode.status, 400);
  assert.is(badCode.body.error.code, 'invalid_code');
  const off = await server.request('POST', '/v1/account/2fa/disable', {
    token: account.session,
    body: { password: account.password, code: account.recovery[0] },
  });
  assert.is(off.status, 200, JSON.stringify(off.body));
  assert.equal(off.body, { object: 'two_factor', enabled: false, enabled_at: null, recovery_codes_remaining: 0 });
  assert.is((await login(account)).status, 200);
});

test('bad inputs and credentials on every two-factor route', async () => {
  const account = await server.account(0);
  for (const path of ['/v1/account/2fa/setup', '/v1/account/2fa/enable', '/v1/account/2fa/disable']) {
    assert.is((await server.request('POST', path, { body: {} })).body.error.code, 'missing_authorization', path);
    assert.is(
      (await server.request('POST', path, { token: account.token, body: {} })).body.error.code,
      'session_required',
      path,
    );
  }
  for (const body of [{}, { code: '12345' }, { code: 'abcdef' }, { code: 123456 }, { code: '1234567' }]) {
    assert.is(
      (await server.request('POST', '/v1/account/2fa/enable', { token: account.session, body })).status,
      422,
      JSON.stringify(body),
    );
  }
  for (const body of [{}, { password: 'x' }, { code: '123456' }, { password: 'x', code: '' }]) {
    assert.is(
      (await server.request('POST', '/v1/account/2fa/disable', { token: account.session, body })).status,
      422,
      JSON.stringify(body),
    );
  }
  for (const extra of [{ totp_code: '12' }, { totp_code: 123456 }, { recovery_code: '' }]) {
    assert.is((await login(account, extra)).status, 422, JSON.stringify(extra));
  }
});

test.run();
