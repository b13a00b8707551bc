import type { LedgerState } from './account-ledger.js';
import type { Hold, LedgerEntry, SettleInput } from './ledger-types.js';

/**
 * The billing port every billable feature uses, and the only path money moves by: hold the worst
 * case before the work (402 when it does not fit), then settle the actual charge (once per
 * reference, never above the cap) or release the hold. A hold belongs to whoever placed it.
 */
export interface Billing {
  /** Balance and holds of an account, as one consistent reading. */
  state(accountId: string): LedgerState;
  /** Throws 402 unless a hold of `amount` would fit now; holds nothing. */
  assertCanHold(accountId: string, amount: number): LedgerState;
  /** Holds `amount` (402 when it does not fit; `force` re-places a hold granted before a restart). */
  hold(input: { accountId: string; tokenId: string | null; amount: number; force?: boolean }): Hold;
  /** Gives a hold back without charging; a no-op once settled or released. */
  release(hold: Hold): void;
  /** Charges and lets the holds go, atomically for readers; null when nothing was charged. */
  settle(holds: Hold | readonly Hold[], input: SettleInput): Promise<LedgerEntry | null>;
}
