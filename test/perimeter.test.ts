import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN_KEY, chatBody, startServer, type TestServer } from './harness.js';

const test = suite('perimeter: tokens, status, balance, rate limits');
let server: TestServer;

test.before(async () => {
  server = await startServer();
});
test.after(() => server.close());

test('a missing Authorization header is 401 missing_authorization', async () => {
  const res = await server.request('GET', '/v1/models');
  assert.is(res.status, 401);
  assert.is(res.body.error.code, 'missing_authorization');
});

test('garbage Authorization headers are 401, never 500', async () => {
  for (const header of ['Basic abc', 'Bearer', 'Bearer ', 'sk-svc-abc', 'Bearer a b c', `Bearer ${'x'.repeat(600)}`]) {
    const res = await server.request('GET', '/v1/models', { headers: { authorization: header } });
    assert.is(res.status, 401, header);
    assert.is(res.body.error.type, 'authentication_error');
  }
});

test('an unknown token is 401 invalid_api_key', async () => {
  const res = await server.request('GET', '/v1/models', { token: 'sk-svc-not-a-real-token' });
  assert.is(res.status, 401);
  assert.is(res.body.error.code, 'invalid_api_key');
});

test('a suspended account is 403 and the denial is counted against the key', async () => {
  const account = await server.account(1);
  await server.request('POST', `/admin/v1/accounts/${account.id}/status`, {
    token: ADMIN_KEY,
    body: { status: 'suspended' },
  });
  const res = await server.request('GET', '/v1/models', { token: account.token });
  assert.is(res.status, 403);
  assert.is(res.body.error.code, 'account_suspended');
  await server.request('POST', `/admin/v1/accounts/${account.id}/status`, {
    token: ADMIN_KEY,
    body: { status: 'active' },
  });
  const usage = await server.request('GET', '/v1/usage', { token: account.token });
  assert.is(usage.status, 200);
  assert.is(usage.body.denied, 1);
  assert.is(usage.body.requests, 2);
});

test('a balance that cannot cover the hold is 402 and nothing is charged', async () => {
  const account = await server.account(0);
  const res = await server.request('POST', '/v1/chat/completions', { token: account.token, body: chatBody() });
  assert.is(res.status, 402);
  assert.is(res.body.error.code, 'insufficient_balance');
  const usage = await server.request('GET', '/v1/usage', { token: account.token });
  assert.is(usage.body.denied, 1);
  assert.is(usage.body.cost_usd, 0);
});

test('requests over requests_per_minute are 429 with Retry-After', async () => {
  const account = await server.account(1);
  await server.request('PATCH', `/v1/account/tokens/${account.tokenId}`, {
    token: account.session,
    body: { requests_per_minute: 3 },
  });
  const statuses: number[] = [];
  let retryAfter: string | null = null;
  for (let i = 0; i < 5; i++) {
    const res = await server.request('GET', '/v1/models', { token: account.token });
    statuses.push(res.status);
    if (res.status === 429) {
      retryAfter = res.headers.get('retry-after');
      assert.is(res.body.error.code, 'rate_limit_exceeded');
    }
  }
  assert.equal(statuses, [200, 200, 200, 429, 429]);
  assert.ok(retryAfter && Number(retryAfter) >= 1, `retry-after ${retryAfter}`);
  const usage = await server.request('PATCH', `/v1/account/tokens/${account.tokenId}`, {
    token: account.session,
    body: { requests_per_minute: null },
  });
  assert.is(usage.status, 200);
  const after = await server.request('GET', '/v1/models', { token: account.token });
  assert.is(after.status, 200);
});

test('public routes answer without a token', async () => {
  assert.is((await server.request('GET', '/v1/pricing')).status, 200);
  assert.is((await server.request('POST', '/v1/estimate', { body: { model: 'pro-1' } })).status, 200);
});

test('early access is public: anonymous is false, a session is read, a bad token is 401', async () => {
  const anonymous = await server.request('GET', '/v1/early-access');
  assert.is(anonymous.status, 200);
  assert.is(anonymous.body.early_access, false);
  assert.is(anonymous.body.restricted, true);
  const account = await server.account(0);
  const signedIn = await server.request('GET', '/v1/early-access', { token: account.session });
  assert.is(signedIn.body.signed_in, true);
  assert.is((await server.request('GET', '/v1/early-access', { token: 'sess_garbage' })).status, 401);
});

test('a session token is not an API token for billable routes', async () => {
  const account = await server.account(1);
  const res = await server.request('POST', '/v1/chat/completions', { token: account.session, body: chatBody() });
  assert.is(res.status, 401);
  assert.is(res.body.error.code, 'invalid_api_key');
});

test.run();
