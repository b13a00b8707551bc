// The floor the guarantee itself sets (issue 28): a non-streaming answer waits for its settle to be
// durable, and that commit is not one small `put` (the disk floor) but the settle's own writes: the
// account's balance, the ledger entry, the day's totals and the token's usage, ~10 dirty pages. This
// times the real `Ledger` hold → settle, one after another, on a store opened as the gateway opens
// it, so the added p99 at one connection can be split into the commit and everything else.
import { rmSync } from 'node:fs';
import { AccountServices } from '../../actors/accounts/account-services.js';
import { holdFor } from '../../actors/billing/charged-work.js';
import { systemClock } from '../../runtime/clock.js';
import { LmdbStore } from '../../runtime/store/lmdb-store.js';
import { tempDataDir } from '../../test/harness.js';
import type { DiskFloor } from './disk-floor.js';

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

/** Times `settles` durable hold → settle round trips of one account and token (a fresh store). */
export async function measureSettleFloor(settles = 1500): Promise<DiskFloor> {
  const dir = tempDataDir();
  const store = LmdbStore.open(dir);
  try {
    const services = new AccountServices(store, systemClock, { sessionTtlMs: 60_000 });
    const created = await services.createAccount({
      email: 'floor@bench.test',
      password: null,
      creditMicros: 1e12,
      tokenLabel: 'floor',
    });
    const payer = { accountId: created!.account.id, tokenId: created!.token!.record.id, requestId: 'req_floor' };
    const bill = {
      charge: 2_000,
      description: 'chat completion',
      model: 'pro-1',
      promptTokens: 12,
      completionTokens: 10,
    };
    const times: number[] = [];
    for (let n = 0; n < settles + 100; n++) {
      const start = performance.now();
      await holdFor(services.ledger, payer, 5_000).settle(bill);
      if (n >= 100) times.push(performance.now() - start); // the first hundred warm the JIT
    }
    times.sort((a, b) => a - b);
    const round = (ms: number) => Math.round(ms * 1000) / 1000;
    return { commits: settles, p50Ms: round(quantile(times, 0.5)), p99Ms: round(quantile(times, 0.99)) };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
