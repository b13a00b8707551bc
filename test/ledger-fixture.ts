import { rmSync } from 'node:fs';
import { AccountServices } from '../actors/accounts/account-services.js';
import type { SettleInput } from '../actors/billing/ledger-types.js';
import { SimulatedClock } from '../runtime/clock.js';
import { LmdbStore } from '../runtime/store/lmdb-store.js';
import { tempDataDir } from './harness.js';

/** Account services on a real LMDB store in a fresh directory, on a simulated clock, with one funded account. */
export interface LedgerFixture {
  store: LmdbStore;
  clock: SimulatedClock;
  services: AccountServices;
  accountId: string;
  tokenId: string;
  /** Closes the services and the store and removes the directory. */
  close: () => Promise<void>;
}

/** Opens a {@link LedgerFixture} whose account holds `creditMicros`. */
export async function openLedgerFixture(email: string, creditMicros: number): Promise<LedgerFixture> {
  const dir = tempDataDir();
  const store = LmdbStore.open(dir);
  const clock = new SimulatedClock();
  const services = new AccountServices(store, clock, { sessionTtlMs: 60_000, usageFlushMs: 0 });
  const close = async () => {
    await services.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  };
  const created = await services.createAccount({ email, password: null, creditMicros, tokenLabel: 't' });
  if (!created?.token) {
    await close();
    throw new Error('the fixture account was not created');
  }
  return { store, clock, services, accountId: created.account.id, tokenId: created.token.record.id, close };
}

/** A chat request's charge of 250 micro-USD, as the ledger tests settle it. */
export const TEST_CHARGE: SettleInput = {
  charge: 250,
  description: 'a',
  requestId: 'r1',
  model: 'pro-1',
  promptTokens: 10,
  completionTokens: 3,
};
