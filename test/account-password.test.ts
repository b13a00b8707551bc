import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestAccount, type TestServer } from './harness.js';

let server: TestServer;

const NEW_PASSWORD = 'Pw#changed!0815';

async function login(email: string, password: string) {
  return server.request('POST', '/v1/auth/login', { body: { email, password } });
}

/** Logs in and returns the session token, failing the test when login does not succeed. */
async function newSession(account: TestAccount): Promise<string> {
  const res = await login(account.email, account.password);
  assert.is(res.status, 200, JSON.stringify(res.body));
  return res.body.token as string;
}

async function changePassword(session: string, body: unknown) {
  return server.request('POST', '/v1/account/password', { token: session, body });
}

async function accountStatus(token: string): Promise<number> {
  return (await server.request('GET', '/v1/account', { token })).status;
}

const test = suite('account: password change');

test.before(async () => {
  server = await startServer();
});

test.after(async () => {
  await server.close();
});

test('GET /v1/account shows id, email, balance and status with a session and with an API token', async () => {
  const account = await server.account(7.5);
  for (const token of [account.session, account.token]) {
    const res = await server.request('GET', '/v1/account', { token });
    assert.is(res.status, 200, JSON.stringify(res.body));
    assert.is(res.body.id, account.id);
    assert.is(res.body.email, account.email);
    assert.is(res.body.balance_usd, 7.5);
    assert.is(res.body.status, 'active');
  }
});

test('changing the password returns a new session and revokes every old one', async () => {
  const account = await server.account();
  const first = await newSession(account);
  const second = await newSession(account);
  const res = await changePassword(first, { current_password: account.password, new_password: NEW_PASSWORD });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.object, 'session');
  assert.type(res.body.token, 'string');
  assert.type(res.body.expires_at, 'number');
  assert.ok(![account.session, first, second].includes(res.body.token), 'the session is new');

  for (const old of [account.session, first, second]) {
    const after = await server.request('GET', '/v1/account', { token: old });
    assert.is(after.status, 401, `old session ${old.slice(0, 10)}… is refused`);
    assert.is(after.body.error.code, 'invalid_api_key');
  }
  const me = await server.request('GET', '/v1/account', { token: res.body.token });
  assert.is(me.status, 200);
  assert.is(me.body.id, account.id);
});

test('after a password change only the new password logs in', async () => {
  const account = await server.account();
  const res = await changePassword(account.session, { current_password: account.password, new_password: NEW_PASSWORD });
  assert.is(res.status, 200, JSON.stringify(res.body));

  const withOld = await login(account.email, account.password);
  assert.is(withOld.status, 401);
  assert.is(withOld.body.error.code, 'invalid_credentials');

  const withNew = await login(account.email, NEW_PASSWORD);
  assert.is(withNew.status, 200, JSON.stringify(withNew.body));
  assert.is(withNew.body.account.id, account.id);
  assert.is(await accountStatus(withNew.body.token), 200);
});

test('API tokens keep working after a password change', async () => {
  const account = await server.account();
  const res = await changePassword(account.session, { current_password: account.password, new_password: NEW_PASSWORD });
  assert.is(res.status, 200);
  assert.is(await accountStatus(account.token), 200);
  assert.is((await server.request('GET', '/v1/models', { token: account.token })).status, 200);
});

test('a wrong current password is 401 invalid_credentials and changes nothing', async () => {
  const account = await server.account();
  const res = await changePassword(account.session, {
    current_password: 'not the password',
    new_password: NEW_PASSWORD,
  });
  assert.is(res.status, 401, JSON.stringify(res.body));
  assert.is(res.body.error.code, 'invalid_credentials');

  assert.is(await accountStatus(account.session), 200, 'the old session is still valid');
  assert.is((await login(account.email, account.password)).status, 200, 'the old password still logs in');
  assert.is((await login(account.email, NEW_PASSWORD)).status, 401, 'the new password does not');
});

test('a new password shorter than 8 characters is 422 and changes nothing', async () => {
  const account = await server.account();
  const res = await changePassword(account.session, { current_password: account.password, new_password: 'Sh#rt!7' });
  assert.is(res.status, 422, JSON.stringify(res.body));
  assert.is(res.body.error.code, 'validation_error');
  const locs = (res.body.detail as { loc: unknown[] }[]).map((item) => item.loc.join('.'));
  assert.ok(locs.includes('body.new_password'), JSON.stringify(res.body.detail));
  assert.is(await accountStatus(account.session), 200);
  assert.is((await login(account.email, account.password)).status, 200);
});

test('a password change with an API token is 401 session_required', async () => {
  const account = await server.account();
  const res = await changePassword(account.token, { current_password: account.password, new_password: NEW_PASSWORD });
  assert.is(res.status, 401, JSON.stringify(res.body));
  assert.is(res.body.error.code, 'session_required');
  assert.is((await login(account.email, account.password)).status, 200, 'the password is unchanged');
  assert.is(await accountStatus(account.session), 200);
});

test('the password change response echoes neither password', async () => {
  const account = await server.account();
  const res = await changePassword(account.session, { current_password: account.password, new_password: NEW_PASSWORD });
  assert.is(res.status, 200);
  const text = JSON.stringify(res.body);
  assert.not.ok(text.includes(account.password));
  assert.not.ok(text.includes(NEW_PASSWORD));
  assert.not.ok(/password/i.test(text), `no password field: ${text}`);
});

test.run();
