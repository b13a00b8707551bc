import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN_KEY, startServer, type TestServer } from './harness.js';

const test = suite('admin api');
let server: TestServer;
let disabled: TestServer;
let emailCounter = 0;

/** A fresh e-mail address, unique within this process. */
const freshEmail = () => `admin-api-${++emailCounter}-${process.pid}@example.com`;

/** POST /admin/v1/accounts with the admin key. */
const createAccount = (body: unknown, token = ADMIN_KEY) =>
  server.request('POST', '/admin/v1/accounts', { token, body });

/** Asserts a 422 whose `detail` names `loc`. */
function assertValidation(res: { status: number; body: any }, loc: (string | number)[], label: string): void {
  assert.is(res.status, 422, label);
  assert.is(res.body.error.code, 'validation_error', label);
  assert.ok(Array.isArray(res.body.detail) && res.body.detail.length > 0, `${label}: detail is a non-empty list`);
  assert.ok(
    (res.body.detail as { loc: unknown[] }[]).some((item) => JSON.stringify(item.loc) === JSON.stringify(loc)),
    `${label}: detail names ${JSON.stringify(loc)}, got ${JSON.stringify(res.body.detail)}`,
  );
}

test.before(async () => {
  server = await startServer();
  disabled = await startServer({ SVC_ADMIN_KEY: '' });
});
test.after(async () => {
  await server.close();
  await disabled.close();
});

test('creating an account returns 201 with the account and a working API token', async () => {
  const email = freshEmail();
  const res = await createAccount({ email, password: 'correct horse battery', credit_usd: 7.25 });
  assert.is(res.status, 201);
  assert.type(res.body.account.id, 'string');
  assert.is(res.body.account.email, email);
  assert.is(res.body.account.balance_usd, 7.25);
  assert.type(res.body.api_token.id, 'string');
  assert.type(res.body.api_token.token, 'string');

  const me = await server.request('GET', '/v1/account', { token: res.body.api_token.token });
  assert.is(me.status, 200);
  assert.is(me.body.id, res.body.account.id);
  assert.is(me.body.email, email);
  assert.is(me.body.status, 'active');
  assert.is(me.body.balance_usd, 7.25);
});

test('an account created with a password can log in', async () => {
  const email = freshEmail();
  const created = await createAccount({ email, password: 'correct horse battery' });
  assert.is(created.status, 201);
  assert.is(created.body.account.balance_usd, 0);
  const login = await server.request('POST', '/v1/auth/login', { body: { email, password: 'correct horse battery' } });
  assert.is(login.status, 200);
  assert.type(login.body.token, 'string');
});

test('an account created without a password exists but cannot log in', async () => {
  const email = freshEmail();
  const created = await createAccount({ email, credit_usd: 1 });
  assert.is(created.status, 201);
  const me = await server.request('GET', '/v1/account', { token: created.body.api_token.token });
  assert.is(me.status, 200);
  assert.is(me.body.email, email);
  for (const password of ['', 'correct horse battery']) {
    const login = await server.request('POST', '/v1/auth/login', { body: { email, password } });
    assert.is(login.status, 401, `password ${JSON.stringify(password)}`);
    assert.is(login.body.error.code, 'invalid_credentials');
  }
});

test('credit adds exactly the amount, down to one micro-dollar', async () => {
  const account = await server.account(0);
  const first = await server.request('POST', `/admin/v1/accounts/${account.id}/credit`, {
    token: ADMIN_KEY,
    body: { usd: 0.000001 },
  });
  assert.is(first.status, 200);
  assert.is(first.body.account.balance_usd, 0.000001);
  assert.type(first.body.entry_id, 'string');
  const second = await server.request('POST', `/admin/v1/accounts/${account.id}/credit`, {
    token: ADMIN_KEY,
    body: { usd: 1.5, description: 'top-up' },
  });
  assert.is(second.status, 200);
  assert.is(second.body.account.balance_usd, 1.500001);

  const me = await server.request('GET', '/v1/account', { token: account.token });
  assert.is(me.status, 200);
  assert.is(me.body.balance_usd, 1.500001);
});

test('credit adds to an opening credit exactly', async () => {
  const account = await server.account(0.1);
  const res = await server.request('POST', `/admin/v1/accounts/${account.id}/credit`, {
    token: ADMIN_KEY,
    body: { usd: 0.2 },
  });
  assert.is(res.status, 200);
  const me = await server.request('GET', '/v1/account', { token: account.token });
  assert.is(me.body.balance_usd, 0.3);
});

test('GET /admin/v1/accounts/:id shows the account', async () => {
  const account = await server.account(2);
  const res = await server.request('GET', `/admin/v1/accounts/${account.id}`, { token: ADMIN_KEY });
  assert.is(res.status, 200);
  assert.is(res.body.account.id, account.id);
  assert.is(res.body.account.email, account.email);
  assert.is(res.body.account.balance_usd, 2);
});

test('a suspended account is refused with 403 account_suspended on its token and on login', async () => {
  const account = await server.account(1);
  const suspend = await server.request('POST', `/admin/v1/accounts/${account.id}/status`, {
    token: ADMIN_KEY,
    body: { status: 'suspended' },
  });
  assert.is(suspend.status, 200);
  assert.is(suspend.body.account.status, 'suspended');

  const models = await server.request('GET', '/v1/models', { token: account.token });
  assert.is(models.status, 403);
  assert.is(models.body.error.code, 'account_suspended');

  const login = await server.request('POST', '/v1/auth/login', {
    body: { email: account.email, password: account.password },
  });
  assert.is(login.status, 403);
  assert.is(login.body.error.code, 'account_suspended');

  const session = await server.request('GET', '/v1/account', { token: account.session });
  assert.is(session.status, 403);
  assert.is(session.body.error.code, 'account_suspended');
});

test('reactivating a suspended account lets its token and login work again', async () => {
  const account = await server.account(1);
  await server.request('POST', `/admin/v1/accounts/${account.id}/status`, {
    token: ADMIN_KEY,
    body: { status: 'suspended' },
  });
  const refused = await server.request('GET', '/v1/models', { token: account.token });
  assert.is(refused.status, 403);

  const activate = await server.request('POST', `/admin/v1/accounts/${account.id}/status`, {
    token: ADMIN_KEY,
    body: { status: 'active' },
  });
  assert.is(activate.status, 200);
  assert.is(activate.body.account.status, 'active');

  const models = await server.request('GET', '/v1/models', { token: account.token });
  assert.is(models.status, 200);
  const login = await server.request('POST', '/v1/auth/login', {
    body: { email: account.email, password: account.password },
  });
  assert.is(login.status, 200);
  const me = await server.request('GET', '/v1/account', { token: account.token });
  assert.is(me.body.status, 'active');
  assert.is(me.body.balance_usd, 1);
});

test('creating an account with a missing or malformed e-mail is 422', async () => {
  assertValidation(await createAccount({ password: 'correct horse battery' }), ['body', 'email'], 'missing email');
  assertValidation(
    await createAccount({ email: 'not-an-email', password: 'correct horse battery' }),
    ['body', 'email'],
    'bad email',
  );
  assertValidation(await createAccount({ email: 42 }), ['body', 'email'], 'numeric email');
});

test('creating an account with an invalid opening credit is 422', async () => {
  const cases: [string, unknown][] = [
    ['negative', -1],
    ['string', '5'],
    ['seven decimals', 0.0000001],
    ['too large', 1_000_001],
  ];
  for (const [label, credit] of cases) {
    const email = freshEmail();
    const res = await createAccount({ email, password: 'correct horse battery', credit_usd: credit });
    assertValidation(res, ['body', 'credit_usd'], label);
    // Nothing was created: the same e-mail is still free.
    const retry = await createAccount({ email, password: 'correct horse battery' });
    assert.is(retry.status, 201, `${label}: the e-mail is still free`);
  }
});

test('an opening credit of zero is valid: the account starts at $0 with no ledger entry (regression: 0 was a 422)', async () => {
  const res = await createAccount({ email: freshEmail(), password: 'correct horse battery', credit_usd: 0 });
  assert.is(res.status, 201);
  assert.is(res.body.account.balance_usd, 0);
  const usage = await server.request('GET', '/v1/account/usage', { token: res.body.api_token.token });
  assert.is(usage.body.recent.length, 0);
});

test('creating an account with a too-short password is 422', async () => {
  assertValidation(
    await createAccount({ email: freshEmail(), password: 'short' }),
    ['body', 'password'],
    'short password',
  );
});

test('credit with a missing or invalid amount is 422 and changes nothing', async () => {
  const account = await server.account(1);
  const cases: [string, unknown][] = [
    ['usd missing', {}],
    ['negative', { usd: -1 }],
    ['zero', { usd: 0 }],
    ['string', { usd: '1' }],
    ['seven decimals', { usd: 0.0000001 }],
  ];
  for (const [label, body] of cases) {
    const res = await server.request('POST', `/admin/v1/accounts/${account.id}/credit`, { token: ADMIN_KEY, body });
    assertValidation(res, ['body', 'usd'], label);
  }
  const me = await server.request('GET', '/v1/account', { token: account.token });
  assert.is(me.body.balance_usd, 1);
});

test('status with an unknown or missing value is 422 and changes nothing', async () => {
  const account = await server.account(1);
  for (const [label, body] of [
    ['deleted', { status: 'deleted' }],
    ['missing', {}],
  ] as const) {
    const res = await server.request('POST', `/admin/v1/accounts/${account.id}/status`, { token: ADMIN_KEY, body });
    assertValidation(res, ['body', 'status'], label);
  }
  const me = await server.request('GET', '/v1/account', { token: account.token });
  assert.is(me.status, 200);
  assert.is(me.body.status, 'active');
});

test('credit, status and show for an unknown account id are 404 not_found', async () => {
  const id = 'acct_does_not_exist';
  const credit = await server.request('POST', `/admin/v1/accounts/${id}/credit`, {
    token: ADMIN_KEY,
    body: { usd: 1 },
  });
  assert.is(credit.status, 404);
  assert.is(credit.body.error.code, 'not_found');
  const status = await server.request('POST', `/admin/v1/accounts/${id}/status`, {
    token: ADMIN_KEY,
    body: { status: 'suspended' },
  });
  assert.is(status.status, 404);
  assert.is(status.body.error.code, 'not_found');
  const show = await server.request('GET', `/admin/v1/accounts/${id}`, { token: ADMIN_KEY });
  assert.is(show.status, 404);
  assert.is(show.body.error.code, 'not_found');
});

test('a wrong admin key is 401 and creates nothing', async () => {
  const email = freshEmail();
  const wrong = await createAccount({ email, password: 'correct horse battery' }, `${ADMIN_KEY}x`);
  assert.is(wrong.status, 401);
  assert.is(wrong.body.error.code, 'invalid_api_key');
  const missing = await server.request('POST', '/admin/v1/accounts', {
    body: { email, password: 'correct horse battery' },
  });
  assert.is(missing.status, 401);
  assert.is(missing.body.error.code, 'missing_authorization');
  const created = await createAccount({ email, password: 'correct horse battery' });
  assert.is(created.status, 201, 'the e-mail is still free');
});

test('an API token or a session token used as the admin key is 401', async () => {
  const account = await server.account(1);
  for (const [label, token] of [
    ['api token', account.token],
    ['session', account.session],
  ] as const) {
    const create = await createAccount({ email: freshEmail() }, token);
    assert.is(create.status, 401, label);
    assert.is(create.body.error.code, 'invalid_api_key', label);
    const credit = await server.request('POST', `/admin/v1/accounts/${account.id}/credit`, {
      token,
      body: { usd: 100 },
    });
    assert.is(credit.status, 401, label);
    const status = await server.request('POST', `/admin/v1/accounts/${account.id}/status`, {
      token,
      body: { status: 'suspended' },
    });
    assert.is(status.status, 401, label);
  }
  const me = await server.request('GET', '/v1/account', { token: account.token });
  assert.is(me.body.balance_usd, 1);
  assert.is(me.body.status, 'active');
});

test('a duplicate e-mail is 409 email_taken, whatever its case', async () => {
  const email = freshEmail();
  const first = await createAccount({ email, password: 'correct horse battery' });
  assert.is(first.status, 201);
  const again = await createAccount({ email, password: 'another password' });
  assert.is(again.status, 409);
  assert.is(again.body.error.code, 'email_taken');
  const upper = await createAccount({ email: email.toUpperCase(), password: 'another password' });
  assert.is(upper.status, 409);
  assert.is(upper.body.error.code, 'email_taken');
});

test('a malformed JSON body on an admin route is 400 invalid_json', async () => {
  const res = await server.request('POST', '/admin/v1/accounts', {
    token: ADMIN_KEY,
    raw: '{"email":',
    headers: { 'content-type': 'application/json' },
  });
  assert.is(res.status, 400);
  assert.is(res.body.error.code, 'invalid_json');
});

test('without SVC_ADMIN_KEY the admin routes do not exist (404), even with a Bearer header', async () => {
  for (const token of [ADMIN_KEY, 'anything-at-all-here']) {
    const res = await disabled.request('POST', '/admin/v1/accounts', {
      token,
      body: { email: freshEmail(), password: 'correct horse battery' },
    });
    assert.is(res.status, 404);
    assert.is(res.body.error.code, 'not_found');
  }
  const credit = await disabled.request('POST', '/admin/v1/accounts/acct_x/credit', {
    token: ADMIN_KEY,
    body: { usd: 1 },
  });
  assert.is(credit.status, 404);
  assert.is(credit.body.error.code, 'not_found');
  const bare = await disabled.request('POST', '/admin/v1/accounts', { body: {} });
  assert.is(bare.status, 404);
});

test('machine definitions export as JSON for visualisers (admin only)', async () => {
  const res = await server.request('GET', '/admin/v1/machines', { token: ADMIN_KEY });
  assert.is(res.status, 200);
  assert.ok(res.body.data['chat-session'].states.awaiting_approval, 'session machine states');
  assert.ok(res.body.data.completion.states.running.states.answering, 'completion machine states');
  assert.is((await server.request('GET', '/admin/v1/machines', { token: 'sk-svc-nope' })).status, 401);
});

test.run();
