import Stripe from 'stripe';
import { RetryableError, TerminalError } from '../errors.js';
import { WebhookVerificationError, type HostedCheckout, type PaymentEvent, type PaymentProvider } from '../payment-provider.js';
import { toPaymentEvent } from './stripe-events.js';

/** How old a signed webhook may be, seconds (Stripe's default tolerance). */
const WEBHOOK_TOLERANCE_S = 300;

/** What the Stripe provider is built from: the keys, and an API URL only for test doubles and proxies. */
export interface StripeProviderOptions {
  secretKey: string;
  webhookSecret: string;
  /** `http://127.0.0.1:port` of a provider double; Stripe's own API when absent. */
  apiUrl?: string;
  timeoutMs?: number;
  maxNetworkRetries?: number;
}

/** Maps an SDK failure onto the backends' error types (the key never appears in a message). */
function providerError(err: unknown, action: string): Error {
  if (err instanceof Stripe.errors.StripeConnectionError || err instanceof Stripe.errors.StripeAPIError || err instanceof Stripe.errors.StripeRateLimitError) {
    return new RetryableError(`payment provider unavailable (${action})`, 'upstream_unavailable', null, { cause: err });
  }
  if (err instanceof Stripe.errors.StripeError) return new TerminalError(`payment provider refused ${action}: ${err.type}${err.code ? ` ${err.code}` : ''}`, 'upstream_error', { cause: err });
  return new TerminalError(`payment provider failed (${action})`, 'upstream_error', { cause: err });
}

const seconds = (epochS: number | null | undefined) => (epochS == null ? null : epochS * 1000);

/**
 * Payments through Stripe's official SDK: checkout sessions for top-ups (inline USD price) and
 * plans (recurring prices found by lookup key = our plan id), subscription updates (prorated),
 * the customer portal, and webhook verification with the SDK's own `constructEvent`.
 */
export class StripePaymentProvider implements PaymentProvider {
  readonly name = 'stripe';
  private readonly stripe: Stripe;

  constructor(private readonly options: StripeProviderOptions) {
    const api = options.apiUrl ? new URL(options.apiUrl) : null;
    this.stripe = new Stripe(options.secretKey, {
      maxNetworkRetries: options.maxNetworkRetries ?? 2,
      timeout: options.timeoutMs ?? 20_000,
      appInfo: { name: 'svc-runtime' },
      ...(api && { host: api.hostname, port: api.port || (api.protocol === 'https:' ? 443 : 80), protocol: api.protocol === 'https:' ? 'https' : 'http' }),
    });
  }

  async createCustomer(input: { accountId: string; email: string }): Promise<{ customerId: string }> {
    try {
      const customer = await this.stripe.customers.create({ email: input.email, metadata: { account_id: input.accountId } }, { idempotencyKey: `svc-customer-${input.accountId}` });
      return { customerId: customer.id };
    } catch (err) {
      throw providerError(err, 'customer creation');
    }
  }

  async createTopUpCheckout(input: { accountId: string; customerId: string; amountCents: number; successUrl: string; cancelUrl: string; idempotencyKey: string }): Promise<HostedCheckout> {
    const metadata = { account_id: input.accountId, purpose: 'topup' };
    try {
      const session = await this.stripe.checkout.sessions.create(
        {
          mode: 'payment',
          customer: input.customerId,
          client_reference_id: input.accountId,
          line_items: [{ quantity: 1, price_data: { currency: 'usd', unit_amount: input.amountCents, product_data: { name: 'svc prepaid balance top-up' } } }],
          metadata,
          payment_intent_data: { metadata },
          success_url: input.successUrl,
          cancel_url: input.cancelUrl,
        },
        { idempotencyKey: input.idempotencyKey },
      );
      return this.hosted(session);
    } catch (err) {
      throw providerError(err, 'top-up checkout');
    }
  }

  async createSubscriptionCheckout(input: { accountId: string; customerId: string; plan: string; successUrl: string; cancelUrl: string; idempotencyKey: string }): Promise<HostedCheckout> {
    const price = await this.priceOf(input.plan);
    try {
      const session = await this.stripe.checkout.sessions.create(
        {
          mode: 'subscription',
          customer: input.customerId,
          client_reference_id: input.accountId,
          line_items: [{ price, quantity: 1 }],
          subscription_data: { metadata: { account_id: input.accountId, plan: input.plan } },
          metadata: { account_id: input.accountId, purpose: 'subscription', plan: input.plan },
          success_url: input.successUrl,
          cancel_url: input.cancelUrl,
        },
        { idempotencyKey: input.idempotencyKey },
      );
      return this.hosted(session);
    } catch (err) {
      throw providerError(err, 'subscription checkout');
    }
  }

  async changeSubscription(input: { subscriptionId: string; plan: string; idempotencyKey: string }): Promise<void> {
    const price = await this.priceOf(input.plan);
    try {
      const subscription = await this.stripe.subscriptions.retrieve(input.subscriptionId);
      const item = subscription.items.data[0];
      if (!item) throw new TerminalError('the subscription has no item to change');
      await this.stripe.subscriptions.update(
        input.subscriptionId,
        { items: [{ id: item.id, price }], proration_behavior: 'create_prorations', cancel_at_period_end: false, metadata: { plan: input.plan } },
        { idempotencyKey: input.idempotencyKey },
      );
    } catch (err) {
      if (err instanceof TerminalError) throw err;
      throw providerError(err, 'subscription change');
    }
  }

  async cancelSubscription(input: { subscriptionId: string; idempotencyKey: string }): Promise<void> {
    try {
      await this.stripe.subscriptions.update(input.subscriptionId, { cancel_at_period_end: true }, { idempotencyKey: input.idempotencyKey });
    } catch (err) {
      throw providerError(err, 'subscription cancel');
    }
  }

  async createPortalSession(input: { customerId: string; returnUrl: string }): Promise<{ url: string }> {
    try {
      const session = await this.stripe.billingPortal.sessions.create({ customer: input.customerId, return_url: input.returnUrl });
      return { url: session.url };
    } catch (err) {
      throw providerError(err, 'portal session');
    }
  }

  verifyEvent(payload: Buffer, signature: string | undefined, receivedAtMs: number): PaymentEvent {
    if (!signature) throw new WebhookVerificationError('missing Stripe-Signature header');
    let event: unknown;
    try {
      event = this.stripe.webhooks.constructEvent(payload, signature, this.options.webhookSecret, WEBHOOK_TOLERANCE_S, undefined, receivedAtMs);
    } catch (err) {
      throw new WebhookVerificationError(err instanceof Stripe.errors.StripeSignatureVerificationError ? 'signature does not verify (forged, altered, or older than 5 minutes)' : 'body is not a Stripe event', { cause: err });
    }
    // A verified event we cannot read is our fault, not the sender's: it throws (a 500, logged), so
    // the provider keeps retrying it until the service is fixed, and no money event is dropped.
    return toPaymentEvent(event);
  }

  /** The active recurring price whose lookup key is `plan`. */
  private async priceOf(plan: string): Promise<string> {
    let prices: Stripe.ApiList<Stripe.Price>;
    try {
      prices = await this.stripe.prices.list({ lookup_keys: [plan], active: true, limit: 1 });
    } catch (err) {
      throw providerError(err, 'price lookup');
    }
    const price = prices.data[0];
    if (!price) throw new TerminalError(`no active price with lookup key ${plan} at the payment provider`);
    return price.id;
  }

  private hosted(session: Stripe.Checkout.Session): HostedCheckout {
    if (!session.url) throw new TerminalError('the provider opened a checkout without a URL');
    return { id: session.id, url: session.url, expiresAt: seconds(session.expires_at) };
  }
}
