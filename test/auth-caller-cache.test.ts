import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AccountServices } from '../actors/accounts/account-services.js';
import { Authenticator } from '../actors/accounts/authenticator.js';
import { TicketBook } from '../actors/accounts/ticket-book.js';
import { ApiError } from '../protocols/errors.js';
import { SimulatedClock, systemClock } from '../runtime/clock.js';
import { LmdbStore } from '../runtime/store/lmdb-store.js';
import { MemoryStore } from '../runtime/store/memory-store.js';
import type { Store } from '../runtime/store/store.js';
import { tempDataDir } from './harness.js';

const ROOT = resolve(import.meta.dirname, '..');

/** An authenticator over `store` and an account with credit and one API token. */
async function fixture(store: Store, clock = systemClock) {
  const services = new AccountServices(store, clock, { sessionTtlMs: 60_000, usageFlushMs: 0 });
  const auth = new Authenticator(services, new TicketBook(clock, 60_000));
  const created = await services.createAccount({
    email: `cache-${Math.random()}@example.com`,
    password: null,
    creditMicros: 10_000_000,
    tokenLabel: 'cache',
  });
  const token = created!.token!;
  return { services, auth, accountId: created!.account.id, tokenId: token.record.id, secret: token.value };
}

/** The error code `action` throws, or `ok` when it returns. */
function outcome(action: () => unknown): string {
  try {
    action();
    return 'ok';
  } catch (err) {
    if (err instanceof ApiError) return err.code;
    throw err;
  }
}

/**
 * Runs another process to completion while this one's event loop stands still: no timer can
 * renew LMDB's read snapshot meanwhile, so the read that follows sees the write only because the
 * perimeter asks for fresh reads, not because time passed.
 */
function otherProcess(args: string[], dataDir: string): void {
  const res = spawnSync(process.execPath, ['--import', 'tsx', ...args], {
    cwd: ROOT,
    env: { ...process.env, SVC_DATA_DIR: dataDir },
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.is(res.status, 0, `${args.join(' ')}: ${res.stderr}`);
}

const test = suite('auth caller cache: records kept in memory, exact invalidation');

test('a repeated token is answered from memory: the same frozen records, not a fresh decode', async () => {
  const { auth, secret } = await fixture(new MemoryStore());
  const first = auth.apiToken(secret);
  const second = auth.apiToken(secret);
  assert.ok(first.token === second.token, 'one token record shared');
  assert.ok(first.account === second.account, 'one account record shared');
  assert.ok(Object.isFrozen(first.account) && Object.isFrozen(first.token));
  assert.is(
    outcome(() => auth.apiToken('sk-svc-not-a-token')),
    'invalid_api_key',
  );
});

test('a charge (the ledger writing the balance) keeps the cache; the hold reads the new balance', async () => {
  const { services, auth, secret, accountId, tokenId } = await fixture(new MemoryStore());
  const before = auth.apiToken(secret);
  const hold = services.ledger.hold({ accountId, tokenId, amount: 1_000 });
  await services.ledger.settle(hold, {
    charge: 600,
    description: 'test',
    requestId: null,
    model: null,
    promptTokens: 1,
    completionTokens: 1,
  });
  assert.ok(auth.apiToken(secret).account === before.account, 'still the cached record');
  assert.is(services.ledger.state(accountId).balance, 10_000_000 - 600);
});

test('each write that can change the answer is seen by the next call: disable, enable, suspend, tier, delete', async () => {
  const clock = new SimulatedClock();
  const { services, auth, secret, accountId, tokenId } = await fixture(new MemoryStore(), clock);
  assert.is(
    outcome(() => auth.apiToken(secret)),
    'ok',
  );
  await services.tokens.update(accountId, tokenId, { enabled: false });
  assert.is(
    outcome(() => auth.apiToken(secret)),
    'token_disabled',
  );
  await services.tokens.update(accountId, tokenId, { enabled: true });
  assert.is(
    outcome(() => auth.apiToken(secret)),
    'ok',
  );
  await services.setStatus(accountId, 'suspended');
  assert.is(
    outcome(() => auth.apiToken(secret)),
    'account_suspended',
  );
  await services.setStatus(accountId, 'active');
  assert.is(auth.apiToken(secret).limits?.maxConcurrentRequests !== undefined, true, 'the ladder has caps');
  await services.setTier(accountId, 'custom');
  assert.is(auth.apiToken(secret).limits, null, 'custom: no caps, at once');
  await services.tokens.delete(accountId, tokenId);
  assert.is(
    outcome(() => auth.apiToken(secret)),
    'invalid_api_key',
  );
  assert.is(auth.accountOf(secret), null);
});

test('writes of another process on the same LMDB file are seen by the very next call, with no tick between', async () => {
  const dir = tempDataDir();
  const store = LmdbStore.open(dir);
  try {
    const { auth, secret, accountId, tokenId } = await fixture(store);
    await store.flushed;
    const writer = (...args: string[]) => otherProcess(['test/doubles/account-writer-main.ts', dir, ...args], dir);
    const cli = (...args: string[]) => otherProcess(['actors/accounts/admin-cli.ts', ...args], dir);
    const steps: [() => void, string][] = [
      [() => writer('disable-token', accountId, tokenId), 'token_disabled'],
      [() => writer('enable-token', accountId, tokenId), 'ok'],
      [() => cli('status', '--account', accountId, '--status', 'suspended'), 'account_suspended'],
      [() => cli('status', '--account', accountId, '--status', 'active'), 'ok'],
      [() => writer('password', accountId), 'ok'],
      [() => writer('delete-token', accountId, tokenId), 'invalid_api_key'],
    ];
    for (const [write, expected] of steps) {
      // Cached and read from the current snapshot right before the other process writes.
      outcome(() => auth.apiToken(secret));
      write();
      assert.is(
        outcome(() => auth.apiToken(secret)),
        expected,
      );
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
