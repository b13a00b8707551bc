import type { Clock } from '../../runtime/clock.js';
import { newId } from '../../runtime/ids.js';
import type { Store, Table } from '../../runtime/store/store.js';
import { AuthGeneration } from './auth-generation.js';
import type { TierChoice } from './tiers.js';

/** Whether an account may use the API. */
export type AccountStatus = 'active' | 'suspended';

/** An account as stored. Money is integer micro-USD. */
export interface AccountRecord {
  id: string;
  email: string;
  passwordHash: string | null;
  status: AccountStatus;
  balance: number;
  ledgerSeq: number;
  /** Bumped by a password change: sessions of an older epoch are no longer valid. */
  sessionEpoch: number;
  createdAt: number;
  /** When the address was proven (a verification or reset link was used); absent or null until then. */
  emailVerifiedAt?: number | null;
  /** Total paid through the payment provider, micro-USD: what the tier ladder counts (operator credits do not). */
  paidMicros?: number;
  /** The operator's tier choice; absent means `auto` (the ladder). */
  tier?: TierChoice;
  /** What a live subscription grants: its plan, until the end of the paid period (epoch ms). */
  plan?: { id: string; until: number } | null;
}

/** Lower-cases and trims an e-mail so one address maps to one account. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Accounts and their e-mail index. Every write but the ledger's balance bumps the
 * {@link AuthGeneration} in its transaction, so the perimeter's cached records go stale exactly then.
 */
export class AccountRepo {
  private readonly accounts: Table<AccountRecord>;
  private readonly emails: Table<string>;
  private readonly generation: AuthGeneration;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {
    // Read by every hold and settle: decoded once per version, shared (records are never changed in place).
    this.accounts = store.table<AccountRecord>('accounts', { sharedReads: { maxKeys: 10_000 } });
    this.emails = store.table<string>('account_emails');
    this.generation = new AuthGeneration(store);
  }

  get(id: string): AccountRecord | undefined {
    return this.accounts.get(id);
  }

  findByEmail(email: string): AccountRecord | undefined {
    const id = this.emails.get(normaliseEmail(email));
    return id === undefined ? undefined : this.accounts.get(id);
  }

  /**
   * Creates an account, or returns null when the e-mail is taken. Must run inside a store
   * transaction so the uniqueness check and the write are one step.
   */
  createInTransaction(input: { email: string; passwordHash: string | null; tier?: TierChoice }): AccountRecord | null {
    const email = normaliseEmail(input.email);
    if (this.emails.get(email) !== undefined) return null;
    const record: AccountRecord = {
      id: newId('acct'),
      email,
      passwordHash: input.passwordHash,
      status: 'active',
      balance: 0,
      ledgerSeq: 0,
      sessionEpoch: 0,
      createdAt: this.clock.now(),
      emailVerifiedAt: null,
      paidMicros: 0,
      ...(input.tier !== undefined && input.tier !== 'auto' && { tier: input.tier }),
    };
    void this.accounts.put(record.id, record);
    void this.emails.put(email, record.id);
    return record;
  }

  /** Applies `change` to the stored account atomically; resolves with the new record, or undefined when absent. */
  update(id: string, change: (record: AccountRecord) => AccountRecord): Promise<AccountRecord | undefined> {
    return this.store.transaction(() => {
      const current = this.accounts.get(id);
      if (!current) return undefined;
      const next = change(current);
      void this.accounts.put(id, next);
      this.generation.bumpInTransaction();
      return next;
    });
  }

  /** Writes `record` inside the caller's transaction (it must have been read in that transaction). */
  putInTransaction(record: AccountRecord): void {
    void this.accounts.put(record.id, record);
    this.generation.bumpInTransaction();
  }

  /**
   * The ledger's write, inside its transaction: `account` (read in that transaction) with a new
   * balance and seq. The one account write that does not bump the generation: nothing that
   * authentication decides depends on the balance (holds read it from the store each time).
   */
  putBalanceInTransaction(account: AccountRecord, balance: number, ledgerSeq: number): void {
    void this.accounts.put(account.id, { ...account, balance, ledgerSeq }, { value: account });
  }

  /** Every account, in id order; for the admin CLI. */
  *all(): Iterable<AccountRecord> {
    for (const { value } of this.accounts.getRange()) yield value;
  }
}
