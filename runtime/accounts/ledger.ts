import { applyLedgerEvent, canHold, type LedgerState } from '../../actors/account-ledger.js';
import { ApiError } from '../../protocols/errors.js';
import { microsToUsd } from '../../protocols/money.js';
import type { AccountRecord, AccountRepo } from './account-repo.js';
import type { Clock } from '../clock.js';
import { newId } from '../ids.js';
import type { KeyUsage } from './key-usage.js';
import type { Store, Table } from '../store.js';

/** One movement of money, as listed by /v1/account/usage. `amount` is signed micro-USD. */
export interface LedgerEntry {
  id: string;
  seq: number;
  type: 'topup' | 'charge';
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

/** Per-day totals for one account, kept so the 30-day window is a 30-key read. */
export interface DailyTotals {
  topups: number;
  charges: number;
  requests: number;
  promptTokens: number;
  completionTokens: number;
}

const DAY_MS = 86_400_000;

/** The ledger fields of a charge (the request's own fields, not its hold or cap). */
function chargeEntry(input: ChargeInput, charge: number, tokenId: string | null): Omit<LedgerEntry, 'id' | 'seq' | 'balanceAfter' | 'createdAt'> {
  return {
    type: 'charge',
    amount: -charge,
    description: input.description,
    requestId: input.requestId,
    tokenId,
    model: input.model,
    promptTokens: input.promptTokens,
    completionTokens: input.completionTokens,
  };
}
const EMPTY_DAY: DailyTotals = { topups: 0, charges: 0, requests: 0, promptTokens: 0, completionTokens: 0 };

/**
 * The prepaid ledger. Holds live in memory (a hold moves no money, so a crash loses nothing) and
 * are checked against the stored balance synchronously, so concurrent requests cannot overdraw.
 * A settle writes the charge, the entry, the daily totals and the key's usage in one transaction
 * and only then gives the hold back.
 */
export class Ledger {
  private readonly entries: Table<LedgerEntry>;
  private readonly daily: Table<DailyTotals>;
  /** Charges made for a named thing (a session id): what makes a retried charge a no-op. */
  private readonly refs: Table<[string, number]>;
  private readonly held = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly accounts: AccountRepo,
    private readonly keyUsage: KeyUsage,
    private readonly clock: Clock,
  ) {
    this.entries = store.table<LedgerEntry>('ledger');
    this.daily = store.table<DailyTotals>('ledger_daily');
    this.refs = store.table<[string, number]>('ledger_refs');
  }

  /** Balance and holds of an account, in micro-USD. */
  state(accountId: string): LedgerState {
    return { balance: this.accounts.get(accountId)?.balance ?? 0, held: this.held.get(accountId) ?? 0 };
  }

  /**
   * Holds `amount` for a request, or throws 402 when the balance after other holds cannot cover
   * it. `force` re-places a hold that was granted before a restart.
   */
  hold(input: { accountId: string; tokenId: string | null; amount: number; force?: boolean }): Hold {
    const state = input.force ? this.state(input.accountId) : this.assertCanHold(input.accountId, input.amount);
    this.held.set(input.accountId, applyLedgerEvent(state, { type: 'held', amount: input.amount }).held);
    return { id: newId('hold'), accountId: input.accountId, tokenId: input.tokenId, amount: input.amount, done: false };
  }

  /** Throws 402 unless a hold of `amount` would fit now; holds nothing. Returns the state it checked. */
  assertCanHold(accountId: string, amount: number): LedgerState {
    const state = this.state(accountId);
    if (!canHold(state, amount)) {
      throw new ApiError(
        'insufficient_balance',
        `Insufficient balance: this request may cost up to $${microsToUsd(amount).toFixed(6)} and $${microsToUsd(Math.max(0, state.balance - state.held)).toFixed(6)} is available. Top up the account to continue.`,
      );
    }
    return state;
  }

  /** Gives a hold back without charging. Idempotent. */
  release(hold: Hold): void {
    if (hold.done) return;
    hold.done = true;
    this.releaseHeld(hold);
  }

  private releaseHeld(hold: Hold): void {
    const next = applyLedgerEvent(this.state(hold.accountId), { type: 'released', amount: hold.amount }).held;
    if (next === 0) this.held.delete(hold.accountId);
    else this.held.set(hold.accountId, next);
  }

  /** Charges `input.charge` (capped at the hold) and releases the rest; null when nothing was charged. */
  async settle(hold: Hold, input: ChargeInput): Promise<LedgerEntry | null> {
    if (hold.done) throw new Error(`hold ${hold.id} already settled`);
    hold.done = true;
    const charge = Math.max(0, Math.min(Math.round(input.charge), hold.amount));
    try {
      if (charge === 0 && input.promptTokens === 0 && input.completionTokens === 0) return null;
      return await this.store.transaction(() => {
        const account = this.accounts.get(hold.accountId);
        if (!account) return null;
        const state = applyLedgerEvent({ balance: account.balance, held: 0 }, { type: 'settled', held: hold.amount, charge });
        const entry = this.appendInTransaction(account, state.balance, chargeEntry(input, charge, hold.tokenId));
        if (hold.tokenId) {
          this.keyUsage.addChargeInTransaction(hold.tokenId, { promptTokens: input.promptTokens, completionTokens: input.completionTokens, cost: charge });
        }
        return entry;
      });
    } finally {
      // Only now, with the charge visible in the stored balance, may the hold stop counting.
      this.releaseHeld(hold);
    }
  }

  /**
   * Charges once per `ref`: a second call (a step re-run after a crash) returns the first entry
   * and charges nothing. Without a hold (lost in a restart) the charge is still capped at `cap`.
   */
  async settleRef(ref: string, hold: Hold | null, input: ChargeInput & { accountId: string; tokenId: string | null; cap: number }): Promise<LedgerEntry | null> {
    if (hold && !hold.done) hold.done = true;
    const charge = Math.max(0, Math.min(Math.round(input.charge), hold?.amount ?? input.cap, input.cap));
    try {
      return await this.store.transaction(() => {
        const seen = this.refs.get(ref);
        if (seen) return this.entries.get(seen) ?? null;
        const account = this.accounts.get(input.accountId);
        if (!account || (charge === 0 && input.promptTokens === 0 && input.completionTokens === 0)) return null;
        const balance = applyLedgerEvent({ balance: account.balance, held: 0 }, { type: 'settled', held: charge, charge }).balance;
        const entry = this.appendInTransaction(account, balance, chargeEntry(input, charge, input.tokenId));
        void this.refs.put(ref, [account.id, entry.seq]);
        if (input.tokenId) this.keyUsage.addChargeInTransaction(input.tokenId, { promptTokens: input.promptTokens, completionTokens: input.completionTokens, cost: charge });
        return entry;
      });
    } finally {
      if (hold) this.releaseHeld(hold);
    }
  }

  /** Adds funds inside the caller's transaction (account creation with credit, admin top-up). */
  creditInTransaction(accountId: string, amount: number, description: string): LedgerEntry | null {
    const account = this.accounts.get(accountId);
    if (!account) return null;
    const balance = applyLedgerEvent({ balance: account.balance, held: 0 }, { type: 'credited', amount }).balance;
    return this.appendInTransaction(account, balance, {
      type: 'topup', amount, description, requestId: null, tokenId: null, model: null, promptTokens: 0, completionTokens: 0,
    });
  }

  /** Adds funds in its own transaction; null when the account does not exist. */
  credit(accountId: string, amount: number, description: string): Promise<LedgerEntry | null> {
    return this.store.transaction(() => this.creditInTransaction(accountId, amount, description));
  }

  private appendInTransaction(account: AccountRecord, balanceAfter: number, input: Omit<LedgerEntry, 'id' | 'seq' | 'balanceAfter' | 'createdAt'>): LedgerEntry {
    const now = this.clock.now();
    const seq = account.ledgerSeq + 1;
    const entry: LedgerEntry = { ...input, id: newId('le'), seq, balanceAfter, createdAt: now };
    void this.accounts.accounts.put(account.id, { ...account, balance: balanceAfter, ledgerSeq: seq });
    void this.entries.put([account.id, seq], entry);
    const dayKey = [account.id, Math.floor(now / DAY_MS)];
    const day = this.daily.get(dayKey) ?? EMPTY_DAY;
    void this.daily.put(dayKey, {
      topups: day.topups + (input.type === 'topup' ? input.amount : 0),
      charges: day.charges + (input.type === 'charge' ? -input.amount : 0),
      requests: day.requests + (input.type === 'charge' ? 1 : 0),
      promptTokens: day.promptTokens + input.promptTokens,
      completionTokens: day.completionTokens + input.completionTokens,
    });
    return entry;
  }

  /** The newest entries of an account, newest first. */
  recent(accountId: string, limit: number): LedgerEntry[] {
    const out: LedgerEntry[] = [];
    for (const { value } of this.entries.getRange({ start: [accountId, Number.MAX_SAFE_INTEGER], end: [accountId, 0], reverse: true, limit })) {
      out.push(value);
    }
    return out;
  }

  /** Every entry of an account, oldest first; for audits and tests. */
  *all(accountId: string): Iterable<LedgerEntry> {
    for (const { value } of this.entries.getRange({ start: [accountId, 0], end: [accountId, Number.MAX_SAFE_INTEGER] })) yield value;
  }

  /** Totals over the last `days` calendar days (UTC), today included. */
  totals(accountId: string, days: number): DailyTotals {
    const today = Math.floor(this.clock.now() / DAY_MS);
    const sum = { ...EMPTY_DAY };
    for (const { value } of this.daily.getRange({ start: [accountId, today - days + 1], end: [accountId, today + 1] })) {
      sum.topups += value.topups;
      sum.charges += value.charges;
      sum.requests += value.requests;
      sum.promptTokens += value.promptTokens;
      sum.completionTokens += value.completionTokens;
    }
    return sum;
  }
}
