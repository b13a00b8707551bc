import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, tempDataDir, type TestServer } from './harness.js';

const ROOT = resolve(import.meta.dirname, '..');
const CLI = ['--import', 'tsx', 'actors/accounts/admin-cli.ts'];

interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to completion on `dataDir`; blocks, so only while no server of ours is writing. */
function cli(dataDir: string, ...args: string[]): CliResult {
  const res = spawnSync(process.execPath, [...CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, SVC_DATA_DIR: dataDir },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}

/**
 * Runs the CLI without blocking the event loop: used while an in-process server is up, so that
 * server can keep committing its own LMDB transactions while the CLI waits for the write lock.
 */
function cliAsync(dataDir: string, ...args: string[]): Promise<CliResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [...CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, SVC_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`admin cli timed out: ${stderr}`));
    }, 30_000);
    child.on('error', fail);
    child.on('close', (status) => {
      clearTimeout(timer);
      done({ status, stdout, stderr });
    });
  });
}

/** Parses a successful run's stdout, failing the test with stderr otherwise. */
function output(res: CliResult): any {
  assert.is(res.status, 0, `exit status 0 expected; stderr: ${res.stderr}`);
  return JSON.parse(res.stdout);
}

const test = suite('admin cli');
const dir = tempDataDir();
const email = `cli-${process.pid}@example.com`;
const password = 'correct horse battery';
let accountId = '';
let apiToken = '';
let server: TestServer | undefined;

test.after(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('create-account prints the account and its first API token as JSON', () => {
  const body = output(cli(dir, 'create-account', '--email', email, '--password', password, '--credit-usd', '3'));
  assert.type(body.account.id, 'string');
  assert.is(body.account.email, email);
  assert.is(body.account.status, 'active');
  assert.is(body.account.balance_usd, 3);
  assert.type(body.api_token.id, 'string');
  assert.type(body.api_token.token, 'string');
  accountId = body.account.id;
  apiToken = body.api_token.token;
});

test('credit adds funds to the account', () => {
  const body = output(cli(dir, 'credit', '--account', accountId, '--usd', '2'));
  assert.is(body.account.id, accountId);
  assert.is(body.account.balance_usd, 5);
});

test('status suspends the account', () => {
  const body = output(cli(dir, 'status', '--account', accountId, '--status', 'suspended'));
  assert.is(body.account.id, accountId);
  assert.is(body.account.status, 'suspended');
});

test('show prints the balance and status', () => {
  const body = output(cli(dir, 'show', '--account', accountId));
  assert.equal(body.account, { id: accountId, email, status: 'suspended', balance_usd: 5 });
});

test('list prints every account', () => {
  const second = output(cli(dir, 'create-account', '--email', `cli-other-${process.pid}@example.com`));
  assert.is(second.account.balance_usd, 0);
  const body = output(cli(dir, 'list'));
  assert.ok(Array.isArray(body.accounts));
  assert.is(body.accounts.length, 2);
  const ids = (body.accounts as { id: string }[]).map((a) => a.id).sort();
  assert.equal(ids, [accountId, second.account.id].sort());
  const mine = (body.accounts as { id: string; balance_usd: number; status: string }[]).find((a) => a.id === accountId);
  assert.is(mine?.balance_usd, 5);
  assert.is(mine?.status, 'suspended');
});

test('an unknown or missing command exits 2 with a message on stderr', () => {
  for (const args of [['frobnicate'], []]) {
    const res = cli(dir, ...args);
    assert.is(res.status, 2, JSON.stringify(args));
    assert.ok(res.stderr.length > 0, 'a message on stderr');
    assert.is(res.stdout, '');
  }
});

test('missing or invalid flags exit 2 with a message on stderr', () => {
  const cases = [
    ['create-account'],
    ['create-account', '--email', `cli-bad-${process.pid}@example.com`, '--credit-usd=-1'],
    ['create-account', '--email', `cli-bad-${process.pid}@example.com`, '--credit-usd', 'lots'],
    ['credit', '--usd', '1'],
    ['credit', '--account', accountId],
    ['credit', '--account', accountId, '--usd', 'abc'],
    ['credit', '--account', accountId, '--usd', '0'],
    ['status', '--account', accountId],
    ['status', '--account', accountId, '--status', 'deleted'],
    ['status', '--status', 'active'],
    ['show'],
  ];
  for (const args of cases) {
    const res = cli(dir, ...args);
    assert.is(res.status, 2, JSON.stringify(args));
    assert.ok(res.stderr.length > 0, `${JSON.stringify(args)}: a message on stderr`);
  }
  // Nothing above changed the account.
  const body = output(cli(dir, 'show', '--account', accountId));
  assert.is(body.account.balance_usd, 5);
  assert.is(body.account.status, 'suspended');
});

test('an unknown flag or a flag value that looks like a flag is a usage error: exit 2 with a message on stderr', () => {
  for (const args of [
    ['list', '--bogus', 'x'],
    ['credit', '--account', accountId, '--usd', '-1'],
  ]) {
    const res = cli(dir, ...args);
    assert.is(res.status, 2, `${JSON.stringify(args)}; stderr: ${res.stderr.slice(0, 200)}`);
    assert.ok(res.stderr.length > 0, `${JSON.stringify(args)}: a message on stderr`);
  }
});

test('amounts the admin API refuses (below one micro-dollar, more than six decimals, above 1,000,000) exit 2 and change nothing', () => {
  const own = output(
    cli(dir, 'create-account', '--email', `cli-amounts-${process.pid}@example.com`, '--credit-usd', '1'),
  );
  for (const usd of ['0.0000001', '0.0000015', '5000000']) {
    const res = cli(dir, 'credit', '--account', own.account.id, '--usd', usd);
    assert.is(res.status, 2, `--usd ${usd}; stdout: ${res.stdout.replace(/\s+/g, ' ')}`);
  }
  const after = output(cli(dir, 'show', '--account', own.account.id));
  assert.is(after.account.balance_usd, 1);
  const created = cli(
    dir,
    'create-account',
    '--email',
    `cli-micro-${process.pid}@example.com`,
    '--credit-usd',
    '0.0000001',
  );
  assert.is(created.status, 2, `--credit-usd 0.0000001; stdout: ${created.stdout.replace(/\s+/g, ' ')}`);
});

test('create-account refuses what the admin API refuses: a malformed e-mail or a too-short password', () => {
  for (const args of [
    ['--email', 'not-an-email'],
    ['--email', `cli-short-${process.pid}@example.com`, '--password', 'x'],
  ]) {
    const res = cli(dir, 'create-account', ...args);
    assert.is(res.status, 2, `${JSON.stringify(args)}; stdout: ${res.stdout.replace(/\s+/g, ' ')}`);
    assert.ok(res.stderr.length > 0, `${JSON.stringify(args)}: a message on stderr`);
  }
});

test('an unknown account id exits non-zero', () => {
  for (const args of [
    ['show', '--account', 'acct_nope'],
    ['credit', '--account', 'acct_nope', '--usd', '1'],
    ['status', '--account', 'acct_nope', '--status', 'active'],
  ]) {
    const res = cli(dir, ...args);
    assert.is.not(res.status, 0, JSON.stringify(args));
    assert.ok(res.stderr.length > 0, `${JSON.stringify(args)}: a message on stderr`);
  }
});

test('a duplicate e-mail exits non-zero and creates nothing', () => {
  const res = cli(dir, 'create-account', '--email', email.toUpperCase(), '--credit-usd', '100');
  assert.is.not(res.status, 0);
  assert.ok(res.stderr.length > 0);
  const body = output(cli(dir, 'list'));
  const same = (body.accounts as { email: string; balance_usd: number }[]).filter((a) => a.email === email);
  assert.is(same.length, 1);
  assert.is(same[0]?.balance_usd, 5);
});

test('a server on the same directory sees the CLI-created token and the status the CLI set', async () => {
  server = await startServer({ SVC_DATA_DIR: dir });
  const refused = await server.request('GET', '/v1/account', { token: apiToken });
  assert.is(refused.status, 403);
  assert.is(refused.body.error.code, 'account_suspended');
  const login = await server.request('POST', '/v1/auth/login', { body: { email, password } });
  assert.is(login.status, 403);
  assert.is(login.body.error.code, 'account_suspended');
});

test('the CLI reactivates an account while the server is running', async () => {
  assert.ok(server, 'server started');
  const body = output(await cliAsync(dir, 'status', '--account', accountId, '--status', 'active'));
  assert.is(body.account.status, 'active');
  const me = await server.request('GET', '/v1/account', { token: apiToken });
  assert.is(me.status, 200);
  assert.is(me.body.id, accountId);
  assert.is(me.body.status, 'active');
  assert.is(me.body.balance_usd, 5);
  const login = await server.request('POST', '/v1/auth/login', { body: { email, password } });
  assert.is(login.status, 200);
});

test('a CLI credit while the server is running shows in GET /v1/account', async () => {
  assert.ok(server, 'server started');
  const body = output(await cliAsync(dir, 'credit', '--account', accountId, '--usd', '1.25'));
  assert.is(body.account.balance_usd, 6.25);
  const me = await server.request('GET', '/v1/account', { token: apiToken });
  assert.is(me.status, 200);
  assert.is(me.body.balance_usd, 6.25);
});

test('an account the server creates is visible to the CLI', async () => {
  assert.ok(server, 'server started');
  const account = await server.account(4);
  const body = output(await cliAsync(dir, 'show', '--account', account.id));
  assert.is(body.account.email, account.email);
  assert.is(body.account.balance_usd, 4);
});

test.run();
