import type { Clock } from '../../runtime/clock.js';
import type { Store } from '../../runtime/store/store.js';
import { AccountRepo, type AccountRecord, type AccountStatus } from './account-repo.js';
import { KeyUsage } from './key-usage.js';
import { Ledger } from '../billing/ledger.js';
import { hashPassword } from './passwords.js';
import { RateLimiter } from './rate-limiter.js';
import { SessionRepo } from './session-repo.js';
import { TokenRepo, type TokenRecord } from './token-repo.js';
import { EarlyAccess } from './early-access.js';
import type { TierChoice } from './tiers.js';

/** Everything about accounts, tokens and money, over one store. Shared by the server and the admin CLI. */
export class AccountServices {
  readonly accounts: AccountRepo;
  readonly tokens: TokenRepo;
  readonly sessions: SessionRepo;
  readonly keyUsage: KeyUsage;
  readonly ledger: Ledger;
  readonly rateLimiter: RateLimiter;
  /** Operator grants (and plan grants) of the work-in-progress products. */
  readonly earlyAccess: EarlyAccess;

  constructor(
    readonly store: Store,
    readonly clock: Clock,
    options: { sessionTtlMs: number; usageFlushMs?: number },
  ) {
    this.accounts = new AccountRepo(store, clock);
    this.tokens = new TokenRepo(store, clock);
    this.sessions = new SessionRepo(store, clock, options.sessionTtlMs);
    this.keyUsage = new KeyUsage(store, clock, options.usageFlushMs ?? 1000);
    this.ledger = new Ledger(store, this.accounts, this.keyUsage, clock);
    this.rateLimiter = new RateLimiter(clock);
    this.earlyAccess = new EarlyAccess(store, clock);
  }

  /**
   * Creates an account with optional password, opening credit and first API token, all in one
   * transaction. Null when the e-mail is taken.
   */
  async createAccount(input: {
    email: string;
    password: string | null;
    creditMicros: number;
    tokenLabel: string | null;
    /** The operator's tier choice; self-registered accounts climb the ladder (`auto`). */
    tier?: TierChoice;
  }): Promise<{ account: AccountRecord; token: { record: TokenRecord; value: string } | null } | null> {
    const passwordHash = input.password === null ? null : await hashPassword(input.password);
    const created = await this.store.transaction(() => {
      const account = this.accounts.createInTransaction({
        email: input.email,
        passwordHash,
        ...(input.tier !== undefined && { tier: input.tier }),
      });
      if (!account) return null;
      if (input.creditMicros > 0) this.ledger.creditInTransaction(account.id, input.creditMicros, 'opening credit');
      const token =
        input.tokenLabel === null
          ? null
          : this.tokens.createInTransaction({
              accountId: account.id,
              label: input.tokenLabel,
              requestsPerMinute: null,
            });
      return { accountId: account.id, token };
    });
    if (!created) return null;
    return { account: this.accounts.get(created.accountId)!, token: created.token };
  }

  /** Sets an account's status; undefined when the account does not exist. */
  setStatus(accountId: string, status: AccountStatus): Promise<AccountRecord | undefined> {
    return this.accounts.update(accountId, (record) => ({ ...record, status }));
  }

  /** Sets the operator's tier choice; undefined when the account does not exist. */
  setTier(accountId: string, tier: TierChoice): Promise<AccountRecord | undefined> {
    return this.accounts.update(accountId, (record) => {
      const next: AccountRecord = { ...record, tier };
      if (tier === 'auto') delete next.tier;
      return next;
    });
  }

  /** Writes pending counters; the store itself is closed by its owner. */
  close(): Promise<void> {
    return this.keyUsage.close();
  }
}
