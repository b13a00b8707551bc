import { ApiError } from '../../protocols/errors.js';
import type { DailyTotals, LedgerEntry } from '../billing/ledger-types.js';
import type { AccountRecord } from './account-repo.js';
import type { AccountServices } from './account-services.js';
import type { KeyUsageRecord } from './key-usage.js';
import type { SecondFactor } from './second-factor.js';
import { effectiveTier, nextTier, type EffectiveTier } from './tiers.js';

/** An account with what is held for its requests in flight (micro-USD), its second factor and its tier. */
export interface AccountOverview {
  account: AccountRecord;
  held: number;
  twoFactorEnabled: boolean;
  tier: EffectiveTier;
}

/** The account's tier, and the next rung with what is missing. */
export interface AccountTier extends EffectiveTier {
  next: ReturnType<typeof nextTier>;
}

/** An account's money: balance, holds, its newest ledger entries and the last 30 days' totals. */
export interface AccountUsage {
  accountId: string;
  balance: number;
  held: number;
  recent: LedgerEntry[];
  last30Days: DailyTotals;
}

/** Days covered by the usage totals. */
const USAGE_WINDOW_DAYS = 30;

/**
 * What an account holder reads about their own account: the overview, its money movements and
 * the usage of one API token. Shared by the routes and, later, MCP tools.
 */
export class AccountService {
  constructor(
    private readonly services: AccountServices,
    private readonly secondFactor: SecondFactor | null = null,
  ) {}

  /** The account and what is held for it now; 404 when there is no such account. */
  overview(accountId: string): AccountOverview {
    const account = this.services.accounts.get(accountId);
    if (!account) throw new ApiError('not_found', `No account with id ${accountId}.`, { param: 'id' });
    return {
      account,
      held: this.services.ledger.state(accountId).held,
      twoFactorEnabled: this.secondFactor?.isEnabled(accountId) ?? false,
      tier: effectiveTier(account, this.services.clock.now()),
    };
  }

  /** The account's tier now, and what the next rung needs. */
  tier(accountId: string): AccountTier {
    const { tier } = this.overview(accountId);
    return { ...tier, next: nextTier(tier) };
  }

  /** The account's balance, holds, newest `limit` ledger entries and 30-day totals. */
  usage(accountId: string, limit: number): AccountUsage {
    const { ledger } = this.services;
    const state = ledger.state(accountId);
    return {
      accountId,
      balance: state.balance,
      held: state.held,
      recent: ledger.recent(accountId, limit),
      last30Days: ledger.totals(accountId, USAGE_WINDOW_DAYS),
    };
  }

  /** What one API token has used, counts not yet flushed included. */
  keyUsage(tokenId: string): KeyUsageRecord {
    return this.services.keyUsage.get(tokenId);
  }
}
