// What the ledger takes and gives: its entries, holds, charges and daily totals.

/** One movement of money, as listed by /v1/account/usage. `amount` is signed micro-USD. */
export interface LedgerEntry {
  id: string;
  seq: number;
  /** `reversal`: paid money taken back (a refunded or disputed top-up), or given back when a dispute is won. */
  type: 'topup' | 'charge' | 'reversal';
  amount: number;
  balanceAfter: number;
  description: string;
  requestId: string | null;
  tokenId: string | null;
  model: string | null;
  promptTokens: number;
  completionTokens: number;
  createdAt: number;
}

/** Money held for one request in flight; settle or release it exactly once. */
export interface Hold {
  readonly id: string;
  readonly accountId: string;
  readonly tokenId: string | null;
  readonly amount: number;
  done: boolean;
}

/** What a settled request used and costs. */
export interface ChargeInput {
  charge: number;
  description: string;
  requestId: string | null;
  model: string | null;
  promptTokens: number;
  completionTokens: number;
}

/** What a settle charges: the charge and its ledger fields, and how it is bounded and named. */
export interface SettleInput extends ChargeInput {
  /** Charges once per ref (a session, a call): what makes a re-run settle a no-op. */
  ref?: string;
  /** The most that may be charged; by default what the holds hold. */
  cap?: number;
  /** The account charged; by default the holds'. Needed when no hold survived a restart. */
  accountId?: string;
  /** The token the charge counts against; by default the holds'. */
  tokenId?: string | null;
  /**
   * Writes that must commit with the charge (a stored response the answer names): called inside the
   * settle's transaction with what it charged (the earlier entry for a seen ref, null when nothing
   * was), so both become durable in one commit. Synchronous and write-only; it may run more than once
   * (a cluster transaction re-run), and a throw undoes the charge too.
   */
  alsoWrite?: (entry: LedgerEntry | null) => void;
}

/** Per-day totals for one account, kept so the 30-day window is a 30-key read. */
export interface DailyTotals {
  topups: number;
  charges: number;
  requests: number;
  promptTokens: number;
  completionTokens: number;
}
