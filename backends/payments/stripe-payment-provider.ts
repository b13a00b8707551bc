import type Stripe from 'stripe';
import { lazyModule } from '../../runtime/lazy-module.js';
import { RetryableError, TerminalError } from '../errors.js';
import {
  WebhookVerificationError,
  type HostedCheckout,
  type PaymentEvent,
  type PaymentProvider,
} from '../payment-provider.js';
import { toPaymentEvent } from './stripe-events.js';

/** The Stripe SDK, loaded when the provider is first used (a server without payments never holds it). */
const loadStripe = lazyModule(() => import('stripe').then((m) => m.default));

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
function providerError(err: unknown, action: string, errors: typeof Stripe.errors): Error {
  if (
    err instanceof errors.StripeConnectionError ||
    err instanceof errors.StripeAPIError ||
    err instanceof errors.StripeRateLimitError
  ) {
    return new RetryableError(`payment provider unavailable (${action})`, 'upstream_unavailable', null, { cause: err });
  }
  if (err instanceof errors.StripeError)
    return new TerminalError(
      `payment provider refused ${action}: ${err.type}${err.code ? ` ${err.code}` : ''}`,
      'upstream_error',
      { cause: err },
    );
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
  private readonly client: () => Promise<Stripe>;

  constructor(private readonly options: StripeProviderOptions) {
    const api = options.apiUrl ? new URL(options.apiUrl) : null;
    this.client = lazyModule(async () => {
      const StripeSdk = await loadStripe();
      return new StripeSdk(options.secretKey, {
        maxNetworkRetries: options.maxNetworkRetries ?? 2,
        timeout: options.timeoutMs ?? 20_000,
        appInfo: { name: 'svc-runtime' },
        ...(api && {
          host: api.hostname,
          port: api.port || (api.protocol === 'https:' ? 443 : 80),
          protocol: api.protocol === 'https:' ? 'https' : 'http',
        }),
      });
    });
  }

  /** Runs one SDK call, mapping its failure onto the backends' error types. */
  private async call<T>(action: string, run: (stripe: Stripe) => Promise<T>): Promise<T> {
    const stripe = await this.client();
    try {
      return await run(stripe);
    } catch (err) {
      throw providerError(err, action, (await loadStripe()).errors);
    }
  }

  createCustomer(input: { accountId: string; email: string }): Promise<{ customerId: string }> {
    return this.call('customer creation', async (stripe) => {
      const customer = await stripe.customers.create(
        { email: input.email, metadata: { account_id: input.accountId } },
        { idempotencyKey: `svc-customer-${input.accountId}` },
      );
      return { customerId: customer.id };
    });
  }

  async createTopUpCheckout(input: {
    accountId: string;
    customerId: string;
    amountCents: number;
    successUrl: string;
    cancelUrl: string;
    idempotencyKey: string;
  }): Promise<HostedCheckout> {
    const metadata = { account_id: input.accountId, purpose: 'topup' };
    const session = await this.call('top-up checkout', (stripe) =>
      stripe.checkout.sessions.create(
        {
          mode: 'payment',
          customer: input.customerId,
          client_reference_id: input.accountId,
          line_items: [
            {
              quantity: 1,
              price_data: {
                currency: 'usd',
                unit_amount: input.amountCents,
                product_data: { name: 'svc prepaid balance top-up' },
              },
            },
          ],
          metadata,
          payment_intent_data: { metadata },
          success_url: input.successUrl,
          cancel_url: input.cancelUrl,
        },
        { idempotencyKey: input.idempotencyKey },
      ),
    );
    return this.hosted(session);
  }

  async createSubscriptionCheckout(input: {
    accountId: string;
    customerId: string;
    plan: string;
    successUrl: string;
    cancelUrl: string;
    idempotencyKey: string;
  }): Promise<HostedCheckout> {
    const price = await this.priceOf(input.plan);
    const session = await this.call('subscription checkout', (stripe) =>
      stripe.checkout.sessions.create(
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
      ),
    );
    return this.hosted(session);
  }

  async changeSubscription(input: { subscriptionId: string; plan: string; idempotencyKey: string }): Promise<void> {
    const price = await this.priceOf(input.plan);
    const subscription = await this.call('subscription change', (stripe) =>
      stripe.subscriptions.retrieve(input.subscriptionId),
    );
    const item = subscription.items.data[0];
    if (!item) throw new TerminalError('the subscription has no item to change');
    await this.call('subscription change', (stripe) =>
      stripe.subscriptions.update(
        input.subscriptionId,
        {
          items: [{ id: item.id, price }],
          proration_behavior: 'create_prorations',
          cancel_at_period_end: false,
          metadata: { plan: input.plan },
        },
        { idempotencyKey: input.idempotencyKey },
      ),
    );
  }

  async cancelSubscription(input: { subscriptionId: string; idempotencyKey: string }): Promise<void> {
    await this.call('subscription cancel', (stripe) =>
      stripe.subscriptions.update(
        input.subscriptionId,
        { cancel_at_period_end: true },
        { idempotencyKey: input.idempotencyKey },
      ),
    );
  }

  async createPortalSession(input: { customerId: string; returnUrl: string }): Promise<{ url: string }> {
    const session = await this.call('portal session', (stripe) =>
      stripe.billingPortal.sessions.create({ customer: input.customerId, return_url: input.returnUrl }),
    );
    return { url: session.url };
  }

  async verifyEvent(payload: Buffer, signature: string | undefined, receivedAtMs: number): Promise<PaymentEvent> {
    if (!signature) throw new WebhookVerificationError('missing Stripe-Signature header');
    const [stripe, { errors }] = await Promise.all([this.client(), loadStripe()]);
    let event: unknown;
    try {
      event = stripe.webhooks.constructEvent(
        payload,
        signature,
        this.options.webhookSecret,
        WEBHOOK_TOLERANCE_S,
        undefined,
        receivedAtMs,
      );
    } catch (err) {
      throw new WebhookVerificationError(
        err instanceof errors.StripeSignatureVerificationError
          ? 'signature does not verify (forged, altered, or older than 5 minutes)'
          : 'body is not a Stripe event',
        { cause: err },
      );
    }
    // A verified event we cannot read is our fault, not the sender's: it throws (a 500, logged), so
    // the provider keeps retrying it until the service is fixed, and no money event is dropped.
    return toPaymentEvent(event);
  }

  /** The active recurring price whose lookup key is `plan`. */
  private async priceOf(plan: string): Promise<string> {
    const prices = await this.call('price lookup', (stripe) =>
      stripe.prices.list({ lookup_keys: [plan], active: true, limit: 1 }),
    );
    const price = prices.data[0];
    if (!price) throw new TerminalError(`no active price with lookup key ${plan} at the payment provider`);
    return price.id;
  }

  private hosted(session: Stripe.Checkout.Session): HostedCheckout {
    if (!session.url) throw new TerminalError('the provider opened a checkout without a URL');
    return { id: session.id, url: session.url, expiresAt: seconds(session.expires_at) };
  }
}
