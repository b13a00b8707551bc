import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from './harness.js';

let server: TestServer;

/** A fresh, unused e-mail address. */
function freshEmail(): string {
  return `reg-${randomBytes(6).toString('hex')}@example.com`;
}

/** A distinctive password: `#` and `!` never occur in generated ids or tokens. */
const PASSWORD = 'Pw#register!4711';

/** True when `value` holds a key named `name` anywhere inside it. */
function hasKey(value: unknown, names: readonly string[]): boolean {
  if (Array.isArray(value)) return value.some((item) => hasKey(item, names));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).some(([key, inner]) => names.includes(key) || hasKey(inner, names));
  }
  return false;
}

/** Asserts a 422 whose `detail` items all have `loc` starting with "body", a `msg` and a `type`. */
function assertValidationError(res: Awaited<ReturnType<TestServer['request']>>, field?: string): void {
  assert.is(res.status, 422, JSON.stringify(res.body));
  assert.is(res.body.error.code, 'validation_error');
  assert.ok(Array.isArray(res.body.detail), 'detail is an array');
  assert.ok(res.body.detail.length > 0, 'detail is not empty');
  for (const item of res.body.detail as { loc: unknown; msg: unknown; type: unknown }[]) {
    assert.ok(Array.isArray(item.loc), 'loc is an array');
    assert.is((item.loc as unknown[])[0], 'body');
    assert.type(item.msg, 'string');
    assert.type(item.type, 'string');
  }
  if (field !== undefined) {
    const locs = (res.body.detail as { loc: unknown[] }[]).map((item) => item.loc[1]);
    assert.ok(locs.includes(field), `a detail item points at ${field}: ${JSON.stringify(res.body.detail)}`);
  }
}

async function register(email: string, password = PASSWORD) {
  return server.request('POST', '/v1/auth/register', { body: { email, password } });
}

const test = suite('auth: register, login, logout');

test.before(async () => {
  server = await startServer();
});

test.after(async () => {
  await server.close();
});

test('register returns 201 with a session and an active account with zero balance', async () => {
  const email = freshEmail();
  const res = await register(email);
  assert.is(res.status, 201, JSON.stringify(res.body));
  assert.is(res.body.object, 'session');
  assert.type(res.body.token, 'string');
  assert.ok(res.body.token.length > 16, 'the session token is long');
  assert.type(res.body.expires_at, 'number');
  assert.ok(res.body.expires_at > Math.floor(Date.now() / 1000), 'the session expires in the future');
  assert.type(res.body.account.id, 'string');
  assert.ok(res.body.account.id.length > 0);
  assert.is(res.body.account.email, email);
  assert.is(res.body.account.balance_usd, 0);
  assert.is(res.body.account.status, 'active');
});

test('the session token from register works on GET /v1/account', async () => {
  const email = freshEmail();
  const created = await register(email);
  assert.is(created.status, 201);
  const res = await server.request('GET', '/v1/account', { token: created.body.token });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.id, created.body.account.id);
  assert.is(res.body.email, email);
  assert.is(res.body.balance_usd, 0);
  assert.is(res.body.status, 'active');
});

test('registering an e-mail that is taken answers 409 email_taken and says not to retry', async () => {
  const email = freshEmail();
  assert.is((await register(email)).status, 201);
  const res = await register(email, 'another password 123');
  assert.is(res.status, 409, JSON.stringify(res.body));
  assert.is(res.body.error.code, 'email_taken');
  assert.is(res.headers.get('x-should-retry'), 'false');
});

test('registering the same e-mail in another case is also 409 email_taken', async () => {
  const email = freshEmail();
  assert.is((await register(email)).status, 201);
  const res = await register(email.toUpperCase());
  assert.is(res.status, 409, JSON.stringify(res.body));
  assert.is(res.body.error.code, 'email_taken');
  assert.is(res.headers.get('x-should-retry'), 'false');
});

test('registering the same e-mail with surrounding whitespace is also 409 email_taken', async () => {
  const email = freshEmail();
  assert.is((await register(email)).status, 201);
  const res = await register(`  ${email.replace('reg-', 'REG-')}  `);
  assert.is(res.status, 409, JSON.stringify(res.body));
  assert.is(res.body.error.code, 'email_taken');
  assert.is(res.headers.get('x-should-retry'), 'false');
});

test('register without an e-mail is 422 pointing at email', async () => {
  const res = await server.request('POST', '/v1/auth/register', { body: { password: PASSWORD } });
  assertValidationError(res, 'email');
  const item = (res.body.detail as { loc: unknown[]; type: string }[]).find((d) => d.loc[1] === 'email');
  assert.is(item?.type, 'missing');
});

test('register without a password is 422 pointing at password', async () => {
  const res = await server.request('POST', '/v1/auth/register', { body: { email: freshEmail() } });
  assertValidationError(res, 'password');
  const item = (res.body.detail as { loc: unknown[]; type: string }[]).find((d) => d.loc[1] === 'password');
  assert.is(item?.type, 'missing');
});

test('register with a number as e-mail is 422', async () => {
  assertValidationError(
    await server.request('POST', '/v1/auth/register', { body: { email: 12345, password: PASSWORD } }),
    'email',
  );
});

test('register with an array as password is 422', async () => {
  assertValidationError(
    await server.request('POST', '/v1/auth/register', { body: { email: freshEmail(), password: [PASSWORD] } }),
    'password',
  );
});

test('register with an invalid e-mail is 422', async () => {
  for (const email of ['not-an-email', 'a@', '@example.com', '']) {
    assertValidationError(await register(email), 'email');
  }
});

test('register with a password shorter than 8 characters is 422', async () => {
  assertValidationError(await register(freshEmail(), 'Sh#rt!7'), 'password');
});

test('register with a JSON array body is 422', async () => {
  assertValidationError(
    await server.request('POST', '/v1/auth/register', { body: [{ email: freshEmail(), password: PASSWORD }] }),
  );
});

test('register with a JSON string body is 422', async () => {
  assertValidationError(await server.request('POST', '/v1/auth/register', { body: 'email=a@example.com' }));
});

test('register with malformed JSON is 400 invalid_json', async () => {
  const res = await server.request('POST', '/v1/auth/register', {
    raw: '{"email": "a@example.com", ',
    headers: { 'content-type': 'application/json' },
  });
  assert.is(res.status, 400, JSON.stringify(res.body));
  assert.is(res.body.error.code, 'invalid_json');
});

test('register with an empty body is 400', async () => {
  const res = await server.request('POST', '/v1/auth/register', { headers: { 'content-type': 'application/json' } });
  assert.is(res.status, 400, JSON.stringify(res.body));
  assert.is(res.body.error.code, 'invalid_json');
});

test('login with the right password returns a fresh session that works', async () => {
  const email = freshEmail();
  const created = await register(email);
  assert.is(created.status, 201);
  const res = await server.request('POST', '/v1/auth/login', { body: { email, password: PASSWORD } });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.object, 'session');
  assert.type(res.body.token, 'string');
  assert.is.not(res.body.token, created.body.token);
  assert.type(res.body.expires_at, 'number');
  assert.is(res.body.account.id, created.body.account.id);
  const me = await server.request('GET', '/v1/account', { token: res.body.token });
  assert.is(me.status, 200);
  assert.is(me.body.id, created.body.account.id);
  // the register session is still valid alongside the new one
  assert.is((await server.request('GET', '/v1/account', { token: created.body.token })).status, 200);
});

test('login with the e-mail in another case and with whitespace still works', async () => {
  const email = freshEmail();
  assert.is((await register(email)).status, 201);
  const res = await server.request('POST', '/v1/auth/login', {
    body: { email: ` ${email.toUpperCase()} `, password: PASSWORD },
  });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.object, 'session');
});

test('login with a wrong password and with an unknown e-mail fail identically with 401 invalid_credentials', async () => {
  const email = freshEmail();
  assert.is((await register(email)).status, 201);
  const wrongPassword = await server.request('POST', '/v1/auth/login', {
    body: { email, password: 'wrong password 123' },
  });
  const unknownEmail = await server.request('POST', '/v1/auth/login', {
    body: { email: freshEmail(), password: PASSWORD },
  });
  for (const res of [wrongPassword, unknownEmail]) {
    assert.is(res.status, 401, JSON.stringify(res.body));
    assert.is(res.body.error.code, 'invalid_credentials');
  }
  assert.is(wrongPassword.body.error.message, unknownEmail.body.error.message);
  assert.is(wrongPassword.body.error.type, unknownEmail.body.error.type);
  assert.is(wrongPassword.body.error.param, unknownEmail.body.error.param);
});

test('failed logins are limited per e-mail address across client addresses, the same for an unknown one, and other accounts still log in', async () => {
  const victim = freshEmail();
  assert.is((await register(victim)).status, 201);
  const unknown = freshEmail();
  for (const email of [victim, unknown]) {
    for (let i = 0; i < 10; i++) {
      const res = await server.request('POST', '/v1/auth/login', { body: { email, password: `guess number ${i}` } });
      assert.is(res.status, 401, `failure ${i + 1} is still a plain 401`);
    }
  }
  // The 11th attempt is throttled, even with the right password, and reads the same for both addresses.
  const limited = await server.request('POST', '/v1/auth/login', {
    body: { email: victim.toUpperCase(), password: PASSWORD },
  });
  const limitedUnknown = await server.request('POST', '/v1/auth/login', {
    body: { email: unknown, password: PASSWORD },
  });
  for (const res of [limited, limitedUnknown]) {
    assert.is(res.status, 429, JSON.stringify(res.body));
    assert.is(res.body.error.code, 'rate_limit_exceeded');
    assert.ok(Number(res.headers.get('retry-after')) > 0);
  }
  assert.is(limited.body.error.message, limitedUnknown.body.error.message);
  // Another account from the same client address is not affected.
  const other = freshEmail();
  assert.is((await register(other)).status, 201);
  assert.is(
    (await server.request('POST', '/v1/auth/login', { body: { email: other, password: PASSWORD } })).status,
    200,
  );
});

test('logout with a session answers 200 and that session is then refused', async () => {
  const email = freshEmail();
  const created = await register(email);
  const session = created.body.token as string;
  const other = await server.request('POST', '/v1/auth/login', { body: { email, password: PASSWORD } });
  const res = await server.request('POST', '/v1/auth/logout', { token: session });
  assert.is(res.status, 200, JSON.stringify(res.body));
  const after = await server.request('GET', '/v1/account', { token: session });
  assert.is(after.status, 401);
  assert.is(after.body.error.code, 'invalid_api_key');
  // logging out one session leaves the others alone
  assert.is((await server.request('GET', '/v1/account', { token: other.body.token })).status, 200);
  // and a second logout with the dead session is refused too
  assert.is((await server.request('POST', '/v1/auth/logout', { token: session })).status, 401);
});

test('logout with an API token is 401 session_required', async () => {
  const account = await server.account(0);
  const res = await server.request('POST', '/v1/auth/logout', { token: account.token });
  assert.is(res.status, 401, JSON.stringify(res.body));
  assert.is(res.body.error.code, 'session_required');
  // the API token still works afterwards
  assert.is((await server.request('GET', '/v1/account', { token: account.token })).status, 200);
});

test('logout without an Authorization header is 401 missing_authorization', async () => {
  const res = await server.request('POST', '/v1/auth/logout');
  assert.is(res.status, 401, JSON.stringify(res.body));
  assert.is(res.body.error.code, 'missing_authorization');
});

test('the password is never echoed and no response names a password hash', async () => {
  const email = freshEmail();
  const responses = [
    await register(email),
    await register(email),
    await register(email.toUpperCase()),
    await register(freshEmail(), 'Sh#rt!7'),
    await server.request('POST', '/v1/auth/register', { body: { email: 'not-an-email', password: PASSWORD } }),
    await server.request('POST', '/v1/auth/register', { body: { email: 42, password: PASSWORD } }),
    await server.request('POST', '/v1/auth/register', {
      raw: `{"email":"${email}","password":"${PASSWORD}"`,
      headers: { 'content-type': 'application/json' },
    }),
    await server.request('POST', '/v1/auth/login', { body: { email, password: PASSWORD } }),
    await server.request('POST', '/v1/auth/login', { body: { email, password: `${PASSWORD}-wrong` } }),
    await server.request('POST', '/v1/auth/login', { body: { email: freshEmail(), password: PASSWORD } }),
  ];
  const session = (responses[0]?.body as { token: string }).token;
  responses.push(await server.request('GET', '/v1/account', { token: session }));
  responses.push(await server.request('POST', '/v1/auth/logout', { token: session }));
  assert.is(responses[0]?.status, 201);
  assert.is(responses[7]?.status, 200);
  for (const res of responses) {
    const text = JSON.stringify(res.body);
    assert.not.ok(text.includes(PASSWORD), `the password is not echoed: ${text}`);
    assert.not.ok(text.includes('Sh#rt!7'), `the short password is not echoed: ${text}`);
    assert.not.ok(hasKey(res.body, ['password', 'password_hash', 'passwordHash']), `no password field: ${text}`);
    assert.not.ok(/scrypt\$/.test(text), `no password hash: ${text}`);
  }
});

test.run();
