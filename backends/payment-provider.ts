/** A hosted checkout the provider opened: where the payer goes. */
export interface HostedCheckout {
  id: string;
  url: string;
  /** Epoch ms, when the provider says. */
  expiresAt: number | null;
}

/** A subscription status as the provider reports it (Stripe's vocabulary). */
export type ProviderSubscriptionStatus =
  'active' | 'trialing' | 'past_due' | 'unpaid' | 'incomplete' | 'incomplete_expired' | 'canceled' | 'paused';

/** A subscription as a verified provider event describes it. */
export interface ProviderSubscription {
  id: string;
  accountId: string | null;
  customerId: string | null;
  /** Our plan id (the price's lookup key), null when the price has none. */
  plan: string | null;
  status: ProviderSubscriptionStatus;
  cancelAtPeriodEnd: boolean;
  /** Epoch ms. */
  currentPeriodEnd: number | null;
}

/**
 * A verified provider event, reduced to what the service acts on. `created` is epoch ms.
 * - `topup_paid`: a top-up checkout was paid (synchronously or after a delayed method).
 * - `subscription_checkout`: a subscription checkout completed (links the customer to the account).
 * - `subscription`: a subscription was created, changed or deleted (`deleted`), with its state.
 * - `ignored`: a verified event of a type the service does not act on.
 */
export type PaymentEvent =
  | {
      kind: 'topup_paid';
      eventId: string;
      created: number;
      checkoutId: string;
      accountId: string | null;
      customerId: string | null;
      amountCents: number;
      currency: string;
      paymentIntentId: string | null;
    }
  /** Money of a paid top-up taken back: a refund (`refundedCents`: the payment's refunded total so far) or a dispute opened (`amountCents` of dispute `disputeId`). */
  | { kind: 'refund'; eventId: string; created: number; paymentIntentId: string | null; refundedCents: number }
  | {
      kind: 'dispute';
      eventId: string;
      created: number;
      paymentIntentId: string | null;
      disputeId: string;
      amountCents: number;
      status: 'opened' | 'won' | 'lost';
    }
  | {
      kind: 'subscription_checkout';
      eventId: string;
      created: number;
      checkoutId: string;
      accountId: string | null;
      customerId: string | null;
      subscriptionId: string | null;
    }
  | { kind: 'subscription'; eventId: string; created: number; deleted: boolean; subscription: ProviderSubscription }
  | { kind: 'ignored'; eventId: string; created: number; type: string };

/** A webhook whose signature, timestamp or body does not check out. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

/**
 * The payment provider port (Stripe behind it): hosted checkouts for top-ups and subscription
 * plans, subscription changes, the hosted billing portal, and webhook verification. Failures are
 * the backends' `TerminalError` / `RetryableError`. Identifiers passed in are the provider's.
 */
export interface PaymentProvider {
  /** `stripe`. */
  readonly name: string;
  /** Creates the provider's customer for an account (idempotent per account). */
  createCustomer(input: { accountId: string; email: string }): Promise<{ customerId: string }>;
  /** Opens a one-off checkout of `amountCents` USD that credits `accountId` once paid. */
  createTopUpCheckout(input: {
    accountId: string;
    customerId: string;
    amountCents: number;
    successUrl: string;
    cancelUrl: string;
    idempotencyKey: string;
  }): Promise<HostedCheckout>;
  /** Opens a subscription checkout for `plan` (the lookup key of a recurring price). */
  createSubscriptionCheckout(input: {
    accountId: string;
    customerId: string;
    plan: string;
    successUrl: string;
    cancelUrl: string;
    idempotencyKey: string;
  }): Promise<HostedCheckout>;
  /** Moves a subscription to `plan`, prorated by the provider. */
  changeSubscription(input: { subscriptionId: string; plan: string; idempotencyKey: string }): Promise<void>;
  /** Cancels a subscription at the end of its paid period. */
  cancelSubscription(input: { subscriptionId: string; idempotencyKey: string }): Promise<void>;
  /** A hosted portal session for payment methods and invoices. */
  createPortalSession(input: { customerId: string; returnUrl: string }): Promise<{ url: string }>;
  /**
   * Verifies a webhook delivery (`payload` as received, byte for byte, with its signature header)
   * at `receivedAtMs`; throws {@link WebhookVerificationError} when forged, altered or too old.
   */
  verifyEvent(payload: Buffer, signature: string | undefined, receivedAtMs: number): Promise<PaymentEvent>;
}
