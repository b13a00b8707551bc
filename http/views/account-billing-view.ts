import type { AccountTier } from '../../actors/accounts/account-service.js';
import type { TopUpCheckout } from '../../actors/payments/checkout-service.js';
import type { SubscriptionCheckout, SubscriptionState } from '../../actors/payments/subscription-service.js';
import { microsToUsd } from '../../protocols/money.js';
import {
  PLANS_VERSION,
  TIER_LADDER_VERSION,
  plansView,
  tierLadderView,
  type AccountSubscriptionObject,
  type AccountTierObject,
  type CheckoutObject,
  type PortalObject,
  type SubscriptionObject,
  type WebhookAckObject,
} from '../../protocols/payments.js';

const seconds = (ms: number) => Math.floor(ms / 1000);
const secondsOrNull = (ms: number | null) => (ms === null ? null : seconds(ms));

/** The caller's tier, what the next needs, and the ladder. */
export function accountTierView(tier: AccountTier): AccountTierObject {
  return {
    object: 'account.tier',
    tier: tier.id,
    source: tier.source,
    limits: tier.limits && {
      requests_per_minute: tier.limits.requestsPerMinute,
      max_concurrent_requests: tier.limits.maxConcurrentRequests,
    },
    paid_usd: microsToUsd(tier.paidMicros),
    account_age_days: tier.ageDays,
    next: tier.next && {
      tier: tier.next.tier.id,
      requirements: {
        paid_usd: microsToUsd(tier.next.tier.minPaidMicros),
        account_age_days: tier.next.tier.minAccountAgeDays,
      },
      missing: { paid_usd: microsToUsd(tier.next.missingMicros), account_age_days: tier.next.missingDays },
    },
    ladder_version: TIER_LADDER_VERSION,
    ladder: tierLadderView(),
  };
}

/** A subscription on the wire. */
export function subscriptionView({ state, context }: SubscriptionState): SubscriptionObject {
  return {
    object: 'subscription',
    id: context.id,
    plan: context.plan,
    status: state,
    current_period_end: secondsOrNull(context.currentPeriodEnd),
    cancel_at: state === 'cancel_at_period_end' ? secondsOrNull(context.currentPeriodEnd) : null,
    pending: context.pending && {
      action: context.pending.action,
      plan: context.pending.plan,
      requested_at: seconds(context.pending.at),
    },
    created_at: seconds(context.createdAt),
    updated_at: seconds(context.updatedAt),
  };
}

/** The current subscription (or none) and the plans. */
export function accountSubscriptionView(current: SubscriptionState | null): AccountSubscriptionObject {
  return {
    object: 'account.subscription',
    subscription: current && subscriptionView(current),
    plans_version: PLANS_VERSION,
    plans: plansView(),
  };
}

/** A top-up checkout. */
export function topUpCheckoutView(checkout: TopUpCheckout): CheckoutObject {
  return {
    object: 'checkout.session',
    id: checkout.id,
    url: checkout.url,
    purpose: 'topup',
    amount_usd: microsToUsd(checkout.amountMicros),
    currency: 'usd',
    plan: null,
    expires_at: secondsOrNull(checkout.expiresAt),
  };
}

/** A subscription checkout. */
export function subscriptionCheckoutView(checkout: SubscriptionCheckout): CheckoutObject {
  return {
    object: 'checkout.session',
    id: checkout.id,
    url: checkout.url,
    purpose: 'subscription',
    amount_usd: microsToUsd(checkout.plan.priceMicrosPerMonth),
    currency: 'usd',
    plan: checkout.plan.id,
    expires_at: secondsOrNull(checkout.expiresAt),
  };
}

/** A hosted portal session. */
export function portalView(portal: { url: string }): PortalObject {
  return { object: 'billing_portal.session', url: portal.url };
}

/** The acknowledgement of a webhook delivery. */
export function webhookAckView(outcome: { duplicate: boolean }): WebhookAckObject {
  return { received: true, duplicate: outcome.duplicate };
}
