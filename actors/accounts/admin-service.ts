import { ApiError } from '../../protocols/errors.js';
import type {
  AdminCreateAccount,
  AdminCredit,
  AdminEarlyAccess,
  AdminSetTier,
  AdminStatus,
} from '../../protocols/admin.js';
import type { EarlyAccessProduct } from '../../protocols/payments.js';
import type { WaitlistRepo, WaitlistSignup } from '../waitlist/waitlist-repo.js';
import type { EarlyAccessGrant } from './early-access.js';
import type { SecondFactor } from './second-factor.js';
import { usdToMicros } from '../../protocols/money.js';
import type { AccountRecord } from './account-repo.js';
import { AccountService, type AccountOverview } from './account-service.js';
import type { AccountServices } from './account-services.js';
import type { CreatedToken } from './token-service.js';

/** An account an operator created, with its first API token. */
export interface AdminCreatedAccount extends AccountOverview {
  token: CreatedToken;
}

/**
 * The operator's side of accounts, shared by the admin API and the admin CLI so both accept and
 * do exactly the same: create an account (with opening credit and a first API token), look one
 * up, add funds, suspend or reactivate. An unknown account is a 404 `not_found`.
 */
export class AdminService {
  private readonly overviews: AccountService;

  constructor(
    private readonly services: AccountServices,
    private readonly options: { secondFactor?: SecondFactor; waitlist?: WaitlistRepo } = {},
  ) {
    this.overviews = new AccountService(services, options.secondFactor ?? null);
  }

  /** Creates an account with its first API token; 409 `email_taken` when the address is in use. */
  async createAccount(request: AdminCreateAccount): Promise<AdminCreatedAccount> {
    const created = await this.services.createAccount({
      email: request.email,
      password: request.password ?? null,
      creditMicros: request.credit_usd === undefined ? 0 : usdToMicros(request.credit_usd),
      tokenLabel: 'admin-issued',
      tier: request.tier,
    });
    if (!created)
      throw new ApiError('email_taken', 'An account with this e-mail already exists.', {
        param: 'email',
      });
    return { ...this.account(created.account.id), token: created.token! };
  }

  /** The account and what is held for it now. */
  account(accountId: string): AccountOverview {
    return this.overviews.overview(accountId);
  }

  /** Adds funds; resolves with the account after and the ledger entry's id. */
  async credit(
    accountId: string,
    request: AdminCredit,
    defaultDescription = 'operator top-up',
  ): Promise<{ overview: AccountOverview; entryId: string }> {
    this.account(accountId);
    const entry = await this.services.ledger.credit(
      accountId,
      usdToMicros(request.usd),
      request.description ?? defaultDescription,
    );
    if (!entry) throw notFound(accountId);
    return { overview: this.account(accountId), entryId: entry.id };
  }

  /** Suspends or reactivates the account. */
  async setStatus(accountId: string, request: AdminStatus): Promise<AccountOverview> {
    this.account(accountId);
    if (!(await this.services.setStatus(accountId, request.status))) throw notFound(accountId);
    return this.account(accountId);
  }

  /** Sets the account's tier: `auto` (the ladder), `custom` (no tier caps) or a fixed rung. */
  async setTier(accountId: string, request: AdminSetTier): Promise<AccountOverview> {
    this.account(accountId);
    if (!(await this.services.setTier(accountId, request.tier))) throw notFound(accountId);
    return this.account(accountId);
  }

  /** Grants a work-in-progress product to the account; resolves with its grants. */
  async grantEarlyAccess(accountId: string, request: AdminEarlyAccess): Promise<EarlyAccessGrant[]> {
    this.account(accountId);
    await this.services.earlyAccess.grant(accountId, request.product);
    return this.earlyAccess(accountId);
  }

  /** Takes an operator grant back; resolves with the account's grants. */
  async revokeEarlyAccess(accountId: string, product: EarlyAccessProduct): Promise<EarlyAccessGrant[]> {
    this.account(accountId);
    await this.services.earlyAccess.revoke(accountId, product);
    return this.earlyAccess(accountId);
  }

  /** The products the account may see now, and why. */
  earlyAccess(accountId: string): EarlyAccessGrant[] {
    return this.services.earlyAccess.grantsOf(this.account(accountId).account);
  }

  /** Confirmed waitlist sign-ups, newest first. */
  waitlist(product: EarlyAccessProduct | undefined, limit: number): WaitlistSignup[] {
    return this.options.waitlist?.list(product, limit) ?? [];
  }

  /** Every account, in id order. */
  list(): Iterable<AccountRecord> {
    return this.services.accounts.all();
  }
}

function notFound(accountId: string): ApiError {
  return new ApiError('not_found', `No account with id ${accountId}.`, { param: 'id' });
}
