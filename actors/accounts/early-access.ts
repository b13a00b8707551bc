import { ApiError } from '../../protocols/errors.js';
import { EARLY_ACCESS_PRODUCTS, planDefinition, type EarlyAccessProduct } from '../../protocols/payments.js';
import type { Clock } from '../../runtime/clock.js';
import type { Store, Table } from '../../runtime/store/store.js';
import type { AccountRecord } from './account-repo.js';

/** One product an account may see, and why. */
export interface EarlyAccessGrant {
  product: EarlyAccessProduct;
  source: 'operator' | 'plan';
  grantedAt: number;
}

/** What a visitor is told about the work-in-progress products. */
export interface EarlyAccessStatus {
  signedIn: boolean;
  granted: EarlyAccessProduct[];
}

/**
 * Early access to the work-in-progress products (marketplace, AI companies). They are restricted
 * for everyone; an account sees one when an operator granted it (admin API or CLI) or while a live
 * subscription plan includes it. Everyone else gets 403 `early_access_required` from
 * {@link assertAccess}, the check every product entry point (routes, MCP tools) calls.
 */
export class EarlyAccess {
  private readonly grants: Table<{ grantedAt: number }>;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {
    this.grants = store.table<{ grantedAt: number }>('early_access_grants');
  }

  /** Grants `product` to `accountId` (idempotent: an existing grant keeps its date). */
  async grant(accountId: string, product: EarlyAccessProduct): Promise<void> {
    await this.store.transaction(() => {
      if (!this.grants.doesExist([accountId, product]))
        void this.grants.put([accountId, product], { grantedAt: this.clock.now() });
    });
  }

  /** Takes an operator grant back (a plan's grant stays while the plan does). */
  async revoke(accountId: string, product: EarlyAccessProduct): Promise<void> {
    await this.grants.remove([accountId, product]);
  }

  /** Every product `account` may see now, operator grants first. */
  grantsOf(account: AccountRecord): EarlyAccessGrant[] {
    const out: EarlyAccessGrant[] = [];
    for (const product of EARLY_ACCESS_PRODUCTS) {
      const grant = this.grants.get([account.id, product]);
      if (grant) out.push({ product, source: 'operator', grantedAt: grant.grantedAt });
    }
    const plan = account.plan && account.plan.until > this.clock.now() ? planDefinition(account.plan.id) : undefined;
    for (const product of plan?.earlyAccess ?? []) {
      if (!out.some((grant) => grant.product === product))
        out.push({ product, source: 'plan', grantedAt: this.clock.now() });
    }
    return out;
  }

  /** What `account` (null: anonymous) may see. */
  status(account: AccountRecord | null): EarlyAccessStatus {
    return { signedIn: account !== null, granted: account ? this.grantsOf(account).map((grant) => grant.product) : [] };
  }

  /** Throws 403 `early_access_required` unless `account` may use `product`. */
  assertAccess(account: AccountRecord | null, product: EarlyAccessProduct): void {
    if (account && this.grantsOf(account).some((grant) => grant.product === product)) return;
    throw new ApiError(
      'early_access_required',
      `${product} is in early access: join the waitlist (POST /v1/waitlist/request) to be let in.`,
      { param: 'product' },
    );
  }
}
