import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../protocols/errors.js';
import { AdminEarlyAccessObjectSchema } from '../protocols/admin.js';
import { EarlyAccessObjectSchema } from '../protocols/account.js';
import { ADMIN_KEY, startServer, type TestServer } from './harness.js';

const test = suite(
  'account: early access is restricted, granted by the operator (API and CLI), reflected by GET /v1/early-access',
);
let server: TestServer;
const ROOT = resolve(import.meta.dirname, '..');

/** Runs the admin CLI on `dataDir` without blocking the event loop (the server keeps committing). */
function cli(dataDir: string, ...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'actors/accounts/admin-cli.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, SVC_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

test.before(async () => {
  server = await startServer();
});
test.after(() => server.close());

test('restricted for everyone until granted; the grant shows for that account only; revoke takes it back', async () => {
  const account = await server.account(0);
  const other = await server.account(0);
  const before = EarlyAccessObjectSchema.parse(
    (await server.request('GET', '/v1/early-access', { token: account.session })).body,
  );
  assert.equal([before.early_access, before.granted_products, before.restricted], [false, [], true]);
  const granted = await server.request('POST', `/admin/v1/accounts/${account.id}/early-access`, {
    token: ADMIN_KEY,
    body: { product: 'marketplace' },
  });
  assert.is(granted.status, 200);
  assert.equal(
    AdminEarlyAccessObjectSchema.parse(granted.body).products.map((p) => [p.product, p.source]),
    [['marketplace', 'operator']],
  );
  const after = (await server.request('GET', '/v1/early-access', { token: account.session })).body;
  assert.equal([after.early_access, after.granted_products], [true, ['marketplace']]);
  assert.equal(
    (await server.request('GET', '/v1/early-access', { token: account.token })).body.granted_products,
    ['marketplace'],
    'an API token is read too',
  );
  assert.is((await server.request('GET', '/v1/early-access', { token: other.session })).body.early_access, false);
  assert.is((await server.request('GET', '/v1/early-access')).body.early_access, false);
  const revoked = await server.request('DELETE', `/admin/v1/accounts/${account.id}/early-access/marketplace`, {
    token: ADMIN_KEY,
  });
  assert.equal(revoked.body.products, []);
  assert.is((await server.request('GET', '/v1/early-access', { token: account.session })).body.early_access, false);
});

test('the product check answers 403 early_access_required to everyone without a grant', async () => {
  const account = await server.account(0);
  const { earlyAccess } = server.app.deps.accounts;
  const refusal = (fn: () => void) => {
    try {
      fn();
    } catch (err) {
      return err instanceof ApiError ? [err.status, err.code] : err;
    }
    return null;
  };
  const record = server.app.deps.services.accounts.get(account.id)!;
  assert.equal(
    refusal(() => earlyAccess.assertAccess(null, 'marketplace')),
    [403, 'early_access_required'],
  );
  assert.equal(
    refusal(() => earlyAccess.assertAccess(record, 'ai-companies')),
    [403, 'early_access_required'],
  );
  await server.request('POST', `/admin/v1/accounts/${account.id}/early-access`, {
    token: ADMIN_KEY,
    body: { product: 'ai-companies' },
  });
  assert.is(
    refusal(() => earlyAccess.assertAccess(record, 'ai-companies')),
    null,
  );
  assert.equal(
    refusal(() => earlyAccess.assertAccess(record, 'marketplace')),
    [403, 'early_access_required'],
  );
});

test('admin routes refuse unknown accounts and products, bad bodies and wrong keys', async () => {
  const account = await server.account(0);
  assert.is(
    (
      await server.request('POST', '/admin/v1/accounts/acct_nope/early-access', {
        token: ADMIN_KEY,
        body: { product: 'marketplace' },
      })
    ).status,
    404,
  );
  assert.is(
    (await server.request('GET', '/admin/v1/accounts/acct_nope/early-access', { token: ADMIN_KEY })).status,
    404,
  );
  assert.is(
    (
      await server.request('POST', `/admin/v1/accounts/${account.id}/early-access`, {
        token: ADMIN_KEY,
        body: { product: 'rockets' },
      })
    ).status,
    422,
  );
  assert.is(
    (await server.request('POST', `/admin/v1/accounts/${account.id}/early-access`, { token: ADMIN_KEY, body: {} }))
      .status,
    422,
  );
  assert.is(
    (await server.request('DELETE', `/admin/v1/accounts/${account.id}/early-access/rockets`, { token: ADMIN_KEY }))
      .status,
    404,
  );
  assert.is(
    (
      await server.request('POST', `/admin/v1/accounts/${account.id}/early-access`, {
        token: account.session,
        body: { product: 'marketplace' },
      })
    ).status,
    401,
  );
  assert.is((await server.request('GET', '/admin/v1/waitlist?product=rockets', { token: ADMIN_KEY })).status, 422);
  assert.is((await server.request('GET', '/admin/v1/waitlist?limit=0', { token: ADMIN_KEY })).status, 422);
});

test('the CLI grants, revokes and lists, beside the running server', async () => {
  const account = await server.account(0);
  const granted = await cli(server.dataDir, 'grant-early-access', '--account', account.id, '--product', 'ai-companies');
  assert.is(granted.status, 0, granted.stderr);
  assert.equal(JSON.parse(granted.stdout), {
    account_id: account.id,
    early_access: [{ product: 'ai-companies', source: 'operator' }],
  });
  assert.equal((await server.request('GET', '/v1/early-access', { token: account.session })).body.granted_products, [
    'ai-companies',
  ]);
  const bad = await cli(server.dataDir, 'grant-early-access', '--account', account.id, '--product', 'rockets');
  assert.is(bad.status, 2);
  assert.match(bad.stderr, /--product/);
  const missing = await cli(server.dataDir, 'grant-early-access', '--account', 'acct_nope', '--product', 'marketplace');
  assert.is(missing.status, 2);
  const tier = await cli(server.dataDir, 'set-tier', '--account', account.id, '--tier', 'tier-3');
  assert.equal(JSON.parse(tier.stdout), { account_id: account.id, tier: 'tier-3', source: 'operator' });
  const revoked = await cli(
    server.dataDir,
    'revoke-early-access',
    '--account',
    account.id,
    '--product',
    'ai-companies',
  );
  assert.equal(JSON.parse(revoked.stdout).early_access, []);
  const list = await cli(server.dataDir, 'waitlist', '--product', 'marketplace');
  assert.is(list.status, 0, list.stderr);
  assert.ok(Array.isArray(JSON.parse(list.stdout).waitlist));
});

test.run();
