import { applyLedgerEvent, canHold, type LedgerState } from './account-ledger.js';
import type { Billing } from './billing.js';
import { ApiError } from '../../protocols/errors.js';
import { microsToUsd } from '../../protocols/money.js';
import type { AccountRecord, AccountRepo } from '../accounts/account-repo.js';
import type { Clock } from '../../runtime/clock.js';
import { newId } from '../../runtime/ids.js';
import type { KeyUsage } from '../accounts/key-usage.js';
import { fromLedgerRecord, toLedgerRecord, type LedgerRecord } from './ledger-record.js';
import type { Store, Table } from '../../runtime/store/store.js';
import type { ChargeInput, DailyTotals, Hold, LedgerEntry, SettleInput } from './ledger-types.js';

const DAY_MS = 86_400_000;

/** The ledger fields of a charge (the request's own fields, not its hold or cap). */
function chargeEntry(
  input: ChargeInput,
  charge: number,
  tokenId: string | null,
): Omit<LedgerEntry, 'id' | 'seq' | 'balanceAfter' | 'createdAt'> {
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
/** What a key that was never written holds, for {@link Table.put}'s undo journal. */
const NEW_KEY = { value: undefined };
const EMPTY_DAY: DailyTotals = { topups: 0, charges: 0, requests: 0, promptTokens: 0, completionTokens: 0 };

/** A hold whose charge is being committed: it stops counting once the account's seq reaches `seq`. */
interface Settling {
  seq: number;
  amount: number;
}

/**
 * The prepaid ledger. Holds live in memory (a hold moves no money, so a crash loses nothing) and
 * are checked against the stored balance synchronously, so concurrent requests cannot overdraw.
 * A hold is an object owned by whoever placed it: only that object releases or settles it.
 * A settle writes the charge, the entry, the daily totals and the key's usage in one transaction;
 * readers see the charge and the hold's release as one step (the hold stops counting exactly
 * when the stored account shows the charge's seq), so money is never counted twice.
 */
export class Ledger implements Billing {
  /** Entries under [accountId, seq]: records, or whole entries written before records (read alike). */
  private readonly entries: Table<LedgerRecord | LedgerEntry>;
  private readonly daily: Table<DailyTotals>;
  /** Charges made for a named thing (a session id): what makes a retried charge a no-op. */
  private readonly refs: Table<[string, number]>;
  private readonly held = new Map<string, number>();
  private readonly settling = new Map<string, Set<Settling>>();
  /** Told of every hold, release and charge (the operator metrics); null when nobody counts. */
  meter: ((op: 'hold' | 'release' | 'charge', micros: number) => void) | null = null;

  constructor(
    private readonly store: Store,
    private readonly accounts: AccountRepo,
    private readonly keyUsage: KeyUsage,
    private readonly clock: Clock,
  ) {
    this.entries = store.table<LedgerRecord | LedgerEntry>('ledger');
    this.daily = store.table<DailyTotals>('ledger_daily');
    this.refs = store.table<[string, number]>('ledger_refs');
  }

  /** Balance and holds of an account, in micro-USD, as one consistent reading. */
  state(accountId: string): LedgerState {
    const account = this.accounts.get(accountId);
    let held = this.held.get(accountId) ?? 0;
    const settling = this.settling.get(accountId);
    if (settling && account) {
      for (const pending of settling) if (account.ledgerSeq >= pending.seq) held -= pending.amount;
    }
    return { balance: account?.balance ?? 0, held: Math.max(0, held) };
  }

  /**
   * Holds `amount` for a request, or throws 402 when the balance after other holds cannot cover
   * it. `force` re-places a hold that was granted before a restart.
   */
  hold(input: { accountId: string; tokenId: string | null; amount: number; force?: boolean }): Hold {
    if (!input.force) this.assertCanHold(input.accountId, input.amount);
    this.held.set(input.accountId, (this.held.get(input.accountId) ?? 0) + input.amount);
    this.meter?.('hold', input.amount);
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

  /** Gives a hold back without charging. Idempotent: a hold already settled or released is left alone. */
  release(hold: Hold): void {
    if (hold.done) return;
    hold.done = true;
    this.releaseHeld(hold.accountId, hold.amount);
    this.meter?.('release', hold.amount);
  }

  private releaseHeld(accountId: string, amount: number): void {
    const next = applyLedgerEvent(
      { balance: 0, held: this.held.get(accountId) ?? 0 },
      { type: 'released', amount },
    ).held;
    if (next === 0) this.held.delete(accountId);
    else this.held.set(accountId, next);
  }

  /**
   * Takes `holds` out of the caller's hands for a settle: each must be live and is marked done,
   * so a concurrent release or a second settle of the same hold is a no-op.
   */
  private claim(holds: readonly Hold[]): { accountId: string; amount: number } | null {
    let amount = 0;
    let accountId: string | null = null;
    for (const hold of holds) {
      if (hold.done) continue;
      hold.done = true;
      amount += hold.amount;
      accountId = hold.accountId;
    }
    return accountId === null ? null : { accountId, amount };
  }

  /** Marks `claimed` as settling at `seq` (inside the charge's transaction): readers stop counting it with the charge. */
  private markSettling(claimed: { accountId: string; amount: number } | null, seq: number): Settling | null {
    if (!claimed) return null;
    const pending: Settling = { seq, amount: claimed.amount };
    let set = this.settling.get(claimed.accountId);
    if (!set) this.settling.set(claimed.accountId, (set = new Set()));
    set.add(pending);
    return pending;
  }

  private unmarkSettling(accountId: string, pending: Settling): void {
    const set = this.settling.get(accountId);
    set?.delete(pending);
    if (set?.size === 0) this.settling.delete(accountId);
  }

  /** Ends a settle: the claimed holds stop counting (whether or not a charge committed). */
  private finishSettle(claimed: { accountId: string; amount: number } | null, pending: Settling | null): void {
    if (!claimed) return;
    if (pending) this.unmarkSettling(claimed.accountId, pending);
    this.releaseHeld(claimed.accountId, claimed.amount);
  }

  /**
   * The one way money is charged. Charges `input.charge`, capped at `input.cap` (by default what
   * `holds` hold), as one ledger entry, and lets `holds` go: they stop counting exactly when the
   * charge becomes visible. With a `ref`, charges once per ref: a second settle (a step re-run
   * after a crash) returns the first entry and charges nothing. Null when nothing was charged.
   */
  async settle(holds: Hold | readonly Hold[], input: SettleInput): Promise<LedgerEntry | null> {
    const list: readonly Hold[] = Array.isArray(holds) ? holds : [holds as Hold];
    if (input.ref === undefined && list.length > 0 && list.every((hold) => hold.done))
      throw new Error(`hold ${list[0]!.id} already settled`);
    const accountId = input.accountId ?? list[0]?.accountId;
    if (accountId === undefined) throw new Error('a settle without holds must name its account');
    const tokenId = input.tokenId !== undefined ? input.tokenId : (list[0]?.tokenId ?? null);
    const claimed = this.claim(list);
    const cap = input.cap ?? claimed?.amount ?? 0;
    const charge = Math.max(0, Math.min(Math.round(input.charge), cap));
    let pending: Settling | null = null;
    let charged = false;
    try {
      const write = (): LedgerEntry | null => {
        // The callback may run again (cluster mode re-runs it after losing a race): undo what a previous run marked.
        if (pending) this.unmarkSettling(claimed!.accountId, pending);
        pending = null;
        charged = false;
        if (input.ref !== undefined) {
          const seen = this.refs.get(input.ref);
          if (seen) return this.entry(seen);
        }
        const account = this.accounts.get(accountId);
        if (!account || (charge === 0 && input.promptTokens === 0 && input.completionTokens === 0)) return null;
        const balance = applyLedgerEvent(
          { balance: account.balance, held: 0 },
          { type: 'settled', held: charge, charge },
        ).balance;
        const written = this.appendInTransaction(account, balance, chargeEntry(input, charge, tokenId));
        pending = this.markSettling(claimed, written.seq);
        if (input.ref !== undefined) void this.refs.put(input.ref, [account.id, written.seq]);
        if (tokenId)
          this.keyUsage.addChargeInTransaction(tokenId, {
            promptTokens: input.promptTokens,
            completionTokens: input.completionTokens,
            cost: charge,
          });
        charged = true;
        return written;
      };
      const entry = await this.store.transaction(() => {
        const written = write();
        input.alsoWrite?.(written);
        return written;
      });
      if (charged) this.meter?.('charge', charge);
      return entry;
    } finally {
      this.finishSettle(claimed, pending);
    }
  }

  /** Adds funds inside the caller's transaction (account creation with credit, admin top-up). */
  creditInTransaction(accountId: string, amount: number, description: string): LedgerEntry | null {
    const account = this.accounts.get(accountId);
    if (!account) return null;
    const balance = applyLedgerEvent({ balance: account.balance, held: 0 }, { type: 'credited', amount }).balance;
    return this.appendInTransaction(account, balance, {
      type: 'topup',
      amount,
      description,
      requestId: null,
      tokenId: null,
      model: null,
      promptTokens: 0,
      completionTokens: 0,
    });
  }

  /**
   * Takes back `amount` of paid money inside the caller's transaction (negative `amount` gives it
   * back, a dispute won): a `reversal` entry; the balance may go below zero, and then no hold fits
   * until the account is topped up again. Null when the account does not exist.
   */
  reverseInTransaction(accountId: string, amount: number, description: string): LedgerEntry | null {
    const account = this.accounts.get(accountId);
    if (!account) return null;
    const balance =
      amount >= 0
        ? applyLedgerEvent({ balance: account.balance, held: 0 }, { type: 'reversed', amount }).balance
        : applyLedgerEvent({ balance: account.balance, held: 0 }, { type: 'credited', amount: -amount }).balance;
    return this.appendInTransaction(account, balance, {
      type: 'reversal',
      amount: -amount,
      description,
      requestId: null,
      tokenId: null,
      model: null,
      promptTokens: 0,
      completionTokens: 0,
    });
  }

  /** Adds funds in its own transaction; null when the account does not exist. */
  credit(accountId: string, amount: number, description: string): Promise<LedgerEntry | null> {
    return this.store.transaction(() => this.creditInTransaction(accountId, amount, description));
  }

  private appendInTransaction(
    account: AccountRecord,
    balanceAfter: number,
    input: Omit<LedgerEntry, 'id' | 'seq' | 'balanceAfter' | 'createdAt'>,
  ): LedgerEntry {
    const now = this.clock.now();
    const seq = account.ledgerSeq + 1;
    const entry: LedgerEntry = { ...input, id: newId('le'), seq, balanceAfter, createdAt: now };
    this.accounts.putBalanceInTransaction(account, balanceAfter, seq);
    // The undo journal is told what each key held (read here), so it reads none of them again:
    // an entry's key is new (only this method writes entries, each at the seq it writes beside it).
    void this.entries.put([account.id, seq], toLedgerRecord(entry), NEW_KEY);
    const dayKey = [account.id, Math.floor(now / DAY_MS)];
    const stored = this.daily.get(dayKey);
    const day = stored ?? EMPTY_DAY;
    const held = { value: stored };
    void this.daily.put(
      dayKey,
      {
        // Top-ups net of reversals (a refund takes its top-up back out of the day's total).
        topups: day.topups + (input.type === 'topup' || input.type === 'reversal' ? input.amount : 0),
        charges: day.charges + (input.type === 'charge' ? -input.amount : 0),
        requests: day.requests + (input.type === 'charge' ? 1 : 0),
        promptTokens: day.promptTokens + input.promptTokens,
        completionTokens: day.completionTokens + input.completionTokens,
      },
      held,
    );
    return entry;
  }

  /** The entry stored under `key` ([accountId, seq]), or null. */
  private entry(key: [string, number]): LedgerEntry | null {
    const stored = this.entries.get(key);
    return stored === undefined ? null : fromLedgerRecord(stored, key[1]);
  }

  /** The newest entries of an account, newest first. */
  recent(accountId: string, limit: number): LedgerEntry[] {
    const out: LedgerEntry[] = [];
    for (const { key, value } of this.entries.getRange({
      start: [accountId, Number.MAX_SAFE_INTEGER],
      end: [accountId, 0],
      reverse: true,
      limit,
    })) {
      out.push(fromLedgerRecord(value, (key as [string, number])[1]));
    }
    return out;
  }

  /** Every entry of an account, oldest first; for audits and tests. */
  *all(accountId: string): Iterable<LedgerEntry> {
    for (const { key, value } of this.entries.getRange({
      start: [accountId, 0],
      end: [accountId, Number.MAX_SAFE_INTEGER],
    }))
      yield fromLedgerRecord(value, (key as [string, number])[1]);
  }

  /** Totals over the last `days` calendar days (UTC), today included. */
  totals(accountId: string, days: number): DailyTotals {
    const today = Math.floor(this.clock.now() / DAY_MS);
    const sum = { ...EMPTY_DAY };
    for (const { value } of this.daily.getRange({
      start: [accountId, today - days + 1],
      end: [accountId, today + 1],
    })) {
      sum.topups += value.topups;
      sum.charges += value.charges;
      sum.requests += value.requests;
      sum.promptTokens += value.promptTokens;
      sum.completionTokens += value.completionTokens;
    }
    return sum;
  }
}
