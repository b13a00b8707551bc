import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fromPromise, setup } from 'xstate';
import { ActorHost } from '../runtime/host/actor-host.js';
import { systemClock } from '../runtime/clock.js';
import { createLogger } from '../runtime/logger.js';
import { LmdbStore } from '../runtime/store/lmdb-store.js';
import { ADMIN_KEY, chatBody, startServer, tempDataDir, type TestAccount, type TestServer } from './harness.js';

const test = suite('hostile input: deep JSON, long ids and unstorable records are refused before they cost anything');
let server: TestServer;
let account: TestAccount;

test.before(async () => {
  server = await startServer();
  account = await server.account(5);
});
test.after(() => server.close());

/** A chat request as raw JSON with `field` set to an object nested `depth` levels deep (too deep for JSON.stringify's own stack). */
function deepBody(field: string, depth: number): string {
  return `{"model":"pro-1","messages":[{"role":"user","content":"deep"}],"${field}":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
}

/** An object nested `depth` levels deep. */
function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

const balance = async () =>
  Math.round((await server.request('GET', '/v1/account', { token: account.token })).body.balance_usd * 1e6);

function assertValidation(res: { status: number; body: any }, loc: (string | number)[]): void {
  assert.is(res.status, 422, JSON.stringify(res.body).slice(0, 300));
  assert.is(res.body.error.code, 'validation_error');
  assert.ok(
    res.body.detail.some((item: { loc: unknown[] }) => JSON.stringify(item.loc) === JSON.stringify(loc)),
    `detail names ${JSON.stringify(loc)}: ${JSON.stringify(res.body.detail)}`,
  );
}

test('metadata nested 3,000 levels on a session is a 422 naming metadata, and nothing is created or charged (regression: 500 and a charge)', async () => {
  const before = await balance();
  const res = await server.request('POST', '/v1/chat/sessions', {
    token: account.token,
    body: chatBody('deep', { metadata: nested(3000) }),
  });
  assertValidation(res, ['body', 'metadata']);
  const list = await server.request('GET', '/v1/chat/sessions', { token: account.token });
  assert.is(list.body.data.length, 0);
  assert.is(await balance(), before);
  const usage = await server.request('GET', '/v1/account/usage', { token: account.token });
  assert.is(usage.body.recent.filter((e: { type: string }) => e.type === 'charge').length, 0);
});

test('5,000 levels anywhere in a completion or session body is a 422, never a 500 (regression: body hash and cache key overflowed)', async () => {
  for (const path of ['/v1/chat/completions', '/v1/chat/sessions']) {
    const json = { 'content-type': 'application/json' };
    const inMetadata = await server.request('POST', path, {
      token: account.token,
      raw: deepBody('metadata', 5000),
      headers: json,
    });
    assertValidation(inMetadata, ['body', 'metadata']);
    const inExtra = await server.request('POST', path, {
      token: account.token,
      raw: deepBody('extra_field', 5000),
      headers: json,
    });
    assertValidation(inExtra, ['body', 'extra_field']);
    const deepArray = await server.request('POST', path, {
      token: account.token,
      raw: `{"model":"pro-1","messages":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
      headers: json,
    });
    assertValidation(deepArray, ['body', 'messages']);
  }
});

test('live input and cancel bodies are bounded the same way', async () => {
  const created = await server.request('POST', '/v1/chat/sessions', {
    token: account.token,
    body: chatBody('park me', { require_approval: true }),
  });
  const live = await server.request('POST', `/v1/chat/sessions/${created.body.id}/live-input`, {
    token: account.token,
    body: { content: nested(200) },
  });
  assertValidation(live, ['body', 'content']);
  const cancel = await server.request('POST', `/v1/chat/sessions/${created.body.id}/cancel`, {
    token: account.token,
    body: { reason: 'x', metadata: nested(100) },
  });
  assertValidation(cancel, ['body', 'metadata']);
  await server.request('POST', `/v1/chat/sessions/${created.body.id}/cancel`, { token: account.token });
});

test('metadata is bounded in keys, key length, depth and size', async () => {
  const cases: Record<string, unknown>[] = [
    Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i])),
    { ['k'.repeat(65)]: 1 },
    nested(9),
    { big: 'x'.repeat(1024 * 1024) },
  ];
  for (const metadata of cases) {
    const res = await server.request('POST', '/v1/chat/completions', {
      token: account.token,
      body: chatBody('meta', { metadata }),
    });
    assertValidation(res, ['body', 'metadata']);
  }
  const fine = await server.request('POST', '/v1/chat/completions', {
    token: account.token,
    body: chatBody('meta', { metadata: { team: 'a', run: 7, tags: ['x', 'y'], nested: nested(5) } }),
  });
  assert.is(fine.status, 200);
});

test('path ids of 5,000 characters are a 404 without touching the store (regression: LMDB key limit 500)', async () => {
  const long = 'x'.repeat(5000);
  const cases: [string, string, string | undefined][] = [
    ['GET', `/v1/chat/sessions/sess_${long}`, account.token],
    ['POST', `/v1/chat/sessions/sess_${long}/approve`, account.token],
    ['GET', `/v1/files/file-${long}`, account.token],
    ['DELETE', `/v1/files/file-${long}`, account.token],
    ['GET', `/v1/files/uploads/upload_${long}`, account.token],
    ['PUT', `/v1/files/uploads/upload_${long}/parts/0`, account.token],
    ['GET', `/admin/v1/accounts/acct_${long}`, ADMIN_KEY],
    ['POST', `/v1/chat/completions/chatcmpl-${long}/cancel`, account.token],
    ['PATCH', `/v1/account/tokens/tok_${long}`, account.session],
    ['GET', `/v1/models/pro-1-${long}`, account.token],
  ];
  for (const [method, path, token] of cases) {
    const res = await server.request(method, path, {
      token,
      body: method === 'PATCH' ? { label: 'x' } : undefined,
      raw: method === 'PUT' ? 'bytes' : undefined,
    });
    assert.is(res.status, 404, `${method} ${path.slice(0, 40)}…: ${JSON.stringify(res.body).slice(0, 200)}`);
    assert.is(res.body.error.type, 'not_found_error');
  }
});

test('a files list cursor longer than any id is a 422', async () => {
  const res = await server.request('GET', `/v1/files?after=${'f'.repeat(5000)}`, { token: account.token });
  assertValidation(res, ['query', 'after']);
});

/** A machine that runs one step and then charges; the charge records itself. */
function chargingMachine(charges: string[], step: Promise<void>) {
  return setup({
    types: { context: {} as { blob: unknown }, input: {} as { blob: unknown } },
    actors: {
      work: fromPromise(() => step),
      charge: fromPromise(() => Promise.resolve(void charges.push('charged'))),
    },
  }).createMachine({
    context: ({ input }) => ({ blob: input.blob }),
    initial: 'working',
    states: {
      working: { invoke: { src: 'work', onDone: 'charging' } },
      charging: { invoke: { src: 'charge', onDone: 'done' } },
      done: { type: 'final' },
    },
  });
}

test('an actor whose first state cannot be stored is halted: spawn fails and its work never charges', async () => {
  const dir = tempDataDir();
  const store = LmdbStore.open(dir);
  const host = new ActorHost(store, systemClock, createLogger('silent'));
  const charges: string[] = [];
  let finishStep!: () => void;
  const step = new Promise<void>((resolve) => (finishStep = resolve));
  host.register({ name: 'charging', logic: chargingMachine(charges, step) });
  try {
    // Past what msgpackr can encode on the stack: the boundary refuses such input, this is the host's own guard.
    const failed = await host.spawn('charging', { id: 'a1', ownerId: 'acct', input: { blob: nested(200_000) } }).then(
      () => null,
      (err: unknown) => err,
    );
    assert.ok(failed instanceof Error, 'spawn rejects');
    assert.is(host.isLive('a1'), false);
    assert.is(host.find('a1', 'acct'), undefined);
    assert.equal(host.list('charging', 'acct', 10), []);
    finishStep();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(charges, []);
  } finally {
    await host.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
