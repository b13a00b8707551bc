import OpenAI from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestAccount, type TestServer } from './harness.js';

let server: TestServer;

interface TokenView {
  object: string;
  id: string;
  label: string;
  masked_token: string;
  requests_per_minute: number | null;
  enabled: boolean;
  created_at: number;
}

/** Creates a token with `body` through the session of `account`; fails the test unless 201. */
async function createToken(
  account: TestAccount,
  body: Record<string, unknown> = { label: 'ci', requests_per_minute: 600 },
): Promise<TokenView & { token: string }> {
  const res = await server.request('POST', '/v1/account/tokens', { token: account.session, body });
  assert.is(res.status, 201, JSON.stringify(res.body));
  return res.body as TokenView & { token: string };
}

async function listTokens(
  account: TestAccount,
): Promise<{ status: number; body: { object: string; data: TokenView[] } }> {
  const res = await server.request('GET', '/v1/account/tokens', { token: account.session });
  return { status: res.status, body: res.body as { object: string; data: TokenView[] } };
}

async function findListed(account: TestAccount, id: string): Promise<TokenView | undefined> {
  const list = await listTokens(account);
  assert.is(list.status, 200);
  return list.body.data.find((token) => token.id === id);
}

async function patchToken(account: TestAccount, id: string, body: unknown) {
  return server.request('PATCH', `/v1/account/tokens/${id}`, { token: account.session, body });
}

async function models(token: string) {
  return server.request('GET', '/v1/models', { token });
}

const test = suite('api tokens: create, list, patch, delete');

test.before(async () => {
  server = await startServer();
});

test.after(async () => {
  await server.close();
});

test('creating a token with an API token is 401 session_required', async () => {
  const account = await server.account();
  const res = await server.request('POST', '/v1/account/tokens', {
    token: account.token,
    body: { label: 'from api token' },
  });
  assert.is(res.status, 401, JSON.stringify(res.body));
  assert.is(res.body.error.code, 'session_required');
});

test('creating a token without Authorization is 401', async () => {
  const res = await server.request('POST', '/v1/account/tokens', { body: { label: 'anonymous' } });
  assert.is(res.status, 401, JSON.stringify(res.body));
  assert.is(res.body.error.code, 'missing_authorization');
});

test('creating a token returns 201 with its id, value, label, limit and enabled', async () => {
  const account = await server.account();
  const created = await createToken(account, { label: 'build server', requests_per_minute: 120 });
  assert.is(created.object, 'api_token');
  assert.ok(created.id.startsWith('tok_'), created.id);
  assert.type(created.token, 'string');
  assert.ok(created.token.startsWith('sk-svc-'), 'value has the sk-svc- prefix');
  assert.ok(created.token.length > 'sk-svc-'.length + 16, 'value is long');
  assert.is(created.label, 'build server');
  assert.is(created.requests_per_minute, 120);
  assert.is(created.enabled, true);
  assert.ok(created.masked_token.endsWith(created.token.slice(-4)));
});

test('a new token value authenticates GET /v1/models', async () => {
  const account = await server.account();
  const created = await createToken(account);
  const res = await models(created.token);
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.object, 'list');
  assert.ok(Array.isArray(res.body.data) && res.body.data.length > 0);
});

test('the list shows masked tokens and never the value or its hash', async () => {
  const account = await server.account();
  const created = await createToken(account, { label: 'listed' });
  const list = await listTokens(account);
  assert.is(list.status, 200);
  assert.is(list.body.object, 'list');
  const ids = list.body.data.map((token) => token.id);
  assert.ok(ids.includes(account.tokenId), 'the first token is listed');
  assert.ok(ids.includes(created.id), 'the new token is listed');
  const listed = list.body.data.find((token) => token.id === created.id)!;
  assert.is(listed.label, 'listed');
  assert.is(listed.requests_per_minute, null);
  assert.is(listed.enabled, true);
  assert.ok(listed.masked_token.endsWith(created.token.slice(-4)), listed.masked_token);
  assert.is.not(listed.masked_token, created.token);

  const text = JSON.stringify(list.body);
  assert.not.ok(text.includes(created.token), 'the new value is not in the list');
  assert.not.ok(text.includes(account.token), 'the first value is not in the list');
  for (const token of list.body.data) {
    const keys = Object.keys(token);
    assert.not.ok(keys.includes('token'), 'no token field');
    assert.not.ok(
      keys.some((key) => /hash/i.test(key)),
      `no hash field: ${keys.join(',')}`,
    );
  }
});

test('patching only the label leaves the limit and enabled unchanged', async () => {
  const account = await server.account();
  const created = await createToken(account, { label: 'before', requests_per_minute: 300 });
  const res = await patchToken(account, created.id, { label: 'after' });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.id, created.id);
  assert.is(res.body.label, 'after');
  assert.is(res.body.requests_per_minute, 300);
  assert.is(res.body.enabled, true);
  const listed = await findListed(account, created.id);
  assert.is(listed?.label, 'after');
  assert.is(listed?.requests_per_minute, 300);
  assert.is(listed?.enabled, true);
});

test('patching requests_per_minute to null removes the limit and keeps the label', async () => {
  const account = await server.account();
  const created = await createToken(account, { label: 'limited', requests_per_minute: 300 });
  const res = await patchToken(account, created.id, { requests_per_minute: null });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.requests_per_minute, null);
  assert.is(res.body.label, 'limited');
  assert.is(res.body.enabled, true);
  assert.is((await findListed(account, created.id))?.requests_per_minute, null);
});

test('a disabled token gets 401 token_disabled and works again once enabled', async () => {
  const account = await server.account();
  const created = await createToken(account, { label: 'toggle', requests_per_minute: 600 });
  assert.is((await models(created.token)).status, 200);

  const disabled = await patchToken(account, created.id, { enabled: false });
  assert.is(disabled.status, 200, JSON.stringify(disabled.body));
  assert.is(disabled.body.enabled, false);
  assert.is(disabled.body.label, 'toggle');
  assert.is(disabled.body.requests_per_minute, 600);
  const refused = await models(created.token);
  assert.is(refused.status, 401, JSON.stringify(refused.body));
  assert.is(refused.body.error.code, 'token_disabled');
  assert.is((await models(account.token)).status, 200, 'other tokens of the account are unaffected');

  const enabled = await patchToken(account, created.id, { enabled: true });
  assert.is(enabled.status, 200);
  assert.is(enabled.body.enabled, true);
  assert.is((await models(created.token)).status, 200);
});

test('patching with an invalid body is 422 and changes nothing', async () => {
  const account = await server.account();
  const created = await createToken(account, { label: 'stable', requests_per_minute: 60 });
  const bad: [string, Record<string, unknown>][] = [
    ['label', { label: '' }],
    ['label', { label: 42 }],
    ['requests_per_minute', { requests_per_minute: 0 }],
    ['requests_per_minute', { requests_per_minute: -1 }],
    ['requests_per_minute', { requests_per_minute: 1.5 }],
    ['requests_per_minute', { requests_per_minute: '10' }],
    ['enabled', { enabled: 'yes' }],
  ];
  for (const [field, body] of bad) {
    const res = await patchToken(account, created.id, body);
    assert.is(res.status, 422, `${JSON.stringify(body)} → ${JSON.stringify(res.body)}`);
    assert.is(res.body.error.code, 'validation_error');
    const locs = (res.body.detail as { loc: unknown[] }[]).map((item) => item.loc.join('.'));
    assert.ok(locs.includes(`body.${field}`), `${JSON.stringify(body)} → ${JSON.stringify(res.body.detail)}`);
  }
  const listed = await findListed(account, created.id);
  assert.is(listed?.label, 'stable');
  assert.is(listed?.requests_per_minute, 60);
  assert.is(listed?.enabled, true);
});

test('patching or deleting an unknown token id is 404 not_found', async () => {
  const account = await server.account();
  const patched = await patchToken(account, 'tok_doesnotexist', { label: 'x' });
  assert.is(patched.status, 404, JSON.stringify(patched.body));
  assert.is(patched.body.error.code, 'not_found');
  const deleted = await server.request('DELETE', '/v1/account/tokens/tok_doesnotexist', { token: account.session });
  assert.is(deleted.status, 404, JSON.stringify(deleted.body));
  assert.is(deleted.body.error.code, 'not_found');
});

test("patching or deleting another account's token is 404 and leaves it unchanged", async () => {
  const owner = await server.account();
  const other = await server.account();
  const victim = await createToken(owner, { label: 'owner only', requests_per_minute: 600 });

  const patched = await patchToken(other, victim.id, { label: 'hijacked', enabled: false, requests_per_minute: 1 });
  assert.is(patched.status, 404, JSON.stringify(patched.body));
  assert.is(patched.body.error.code, 'not_found');

  const deleted = await server.request('DELETE', `/v1/account/tokens/${victim.id}`, { token: other.session });
  assert.is(deleted.status, 404, JSON.stringify(deleted.body));
  assert.is(deleted.body.error.code, 'not_found');

  const listed = await findListed(owner, victim.id);
  assert.ok(listed, 'the token is still listed for its owner');
  assert.is(listed?.label, 'owner only');
  assert.is(listed?.enabled, true);
  assert.is(listed?.requests_per_minute, 600);
  assert.is((await models(victim.token)).status, 200, 'the token still works');
  const otherList = await listTokens(other);
  assert.not.ok(
    otherList.body.data.some((token) => token.id === victim.id),
    'not in the other account list',
  );
});

test('deleting a token answers deleted:true, then its value is refused and it is gone from the list', async () => {
  const account = await server.account();
  const created = await createToken(account);
  assert.is((await models(created.token)).status, 200);

  const res = await server.request('DELETE', `/v1/account/tokens/${created.id}`, { token: account.session });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body, { id: created.id, object: 'api_token', deleted: true });

  const refused = await models(created.token);
  assert.is(refused.status, 401, JSON.stringify(refused.body));
  assert.is(refused.body.error.code, 'invalid_api_key');
  assert.is(await findListed(account, created.id), undefined);
  assert.is((await models(account.token)).status, 200, 'the other token still works');
});

test('deleting the same token twice is 404 the second time', async () => {
  const account = await server.account();
  const created = await createToken(account);
  const first = await server.request('DELETE', `/v1/account/tokens/${created.id}`, { token: account.session });
  assert.is(first.status, 200);
  const second = await server.request('DELETE', `/v1/account/tokens/${created.id}`, { token: account.session });
  assert.is(second.status, 404, JSON.stringify(second.body));
  assert.is(second.body.error.code, 'not_found');
});

test('the official SDK raises AuthenticationError for a deleted token', async () => {
  const account = await server.account();
  const created = await createToken(account);
  const client = server.openai(created.token);
  const page = await client.models.list();
  assert.ok(page.data.length > 0, 'the SDK lists models while the token exists');

  const res = await server.request('DELETE', `/v1/account/tokens/${created.id}`, { token: account.session });
  assert.is(res.status, 200);
  let caught: unknown;
  try {
    await client.models.list();
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof OpenAI.AuthenticationError, `expected AuthenticationError, got ${String(caught)}`);
  assert.is(caught.status, 401);
  assert.is(caught.code, 'invalid_api_key');
});

test.run();
