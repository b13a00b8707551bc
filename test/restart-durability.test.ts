import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startChildServer } from './child-server.js';
import { ADMIN_KEY, chatBody, tempDataDir } from './harness.js';

const test = suite('durability: accounts, tokens and balances survive kill -9');
const dataDir = tempDataDir();
const env = { SVC_DATA_DIR: dataDir, SVC_ADMIN_KEY: ADMIN_KEY };

test.after(() => rmSync(dataDir, { recursive: true, force: true }));

async function call(url: string, method: string, path: string, token?: string, body?: unknown) {
  const res = await fetch(url + path, {
    method,
    headers: {
      ...(token && { authorization: `Bearer ${token}` }),
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

test('everything acknowledged before SIGKILL is there after restart', async () => {
  const first = await startChildServer(env);
  const admin = await call(first.url, 'POST', '/admin/v1/accounts', ADMIN_KEY, {
    email: 'durable@example.com',
    password: 'durable-pass-1',
    credit_usd: 2,
  });
  assert.is(admin.status, 201);
  const token = admin.body.api_token.token as string;
  const accountId = admin.body.account.id as string;
  const registered = await call(first.url, 'POST', '/v1/auth/register', undefined, {
    email: 'second@example.com',
    password: 'second-pass-1',
  });
  assert.is(registered.status, 201);
  const login = await call(first.url, 'POST', '/v1/auth/login', undefined, {
    email: 'durable@example.com',
    password: 'durable-pass-1',
  });
  const made = await call(first.url, 'POST', '/v1/account/tokens', login.body.token, {
    label: 'made before crash',
    requests_per_minute: 100,
  });
  assert.is(made.status, 201);
  const chat = await call(first.url, 'POST', '/v1/chat/completions', token, chatBody());
  assert.is(chat.status, 200);
  const before = await call(first.url, 'GET', '/v1/account', token);
  await first.kill('SIGKILL');

  const second = await startChildServer(env);
  try {
    const after = await call(second.url, 'GET', '/v1/account', token);
    assert.is(after.status, 200);
    assert.is(after.body.id, accountId);
    assert.is(after.body.balance_usd, before.body.balance_usd);
    assert.is(after.body.balance_usd, Number((2 - chat.body.svc.price_usd).toFixed(6)));
    const session = await call(second.url, 'GET', '/v1/account', login.body.token);
    assert.is(session.status, 200, 'session survives');
    const tokens = await call(second.url, 'GET', '/v1/account/tokens', login.body.token);
    const labels = tokens.body.data.map((t: { label: string }) => t.label);
    assert.ok(labels.includes('made before crash'));
    const newToken = await call(second.url, 'GET', '/v1/models', made.body.token);
    assert.is(newToken.status, 200);
    const relog = await call(second.url, 'POST', '/v1/auth/login', undefined, {
      email: 'second@example.com',
      password: 'second-pass-1',
    });
    assert.is(relog.status, 200);
    const usage = await call(second.url, 'GET', '/v1/account/usage', token);
    assert.equal(
      usage.body.recent.map((e: { type: string }) => e.type),
      ['charge', 'topup'],
    );
  } finally {
    await second.kill('SIGTERM');
  }
});

test.run();
