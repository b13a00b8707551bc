import { createHash } from 'node:crypto';
import type { HostedCheckout } from '../../backends/payment-provider.js';
import { usdToMicros } from '../../protocols/money.js';
import type { TopUpCheckoutRequest } from '../../protocols/payments.js';
import { newId } from '../../runtime/ids.js';
import { callProvider, ensureCustomer, requireProvider, returnUrls, type PaymentsContext } from './payments-context.js';

/** A top-up checkout opened: the provider's session and the amount it will credit. */
export interface TopUpCheckout extends HostedCheckout {
  amountMicros: number;
}

/** The provider's idempotency key for a client's `Idempotency-Key` (scoped to the account and purpose), or a fresh one. */
export function providerIdempotencyKey(purpose: string, accountId: string, clientKey: string | undefined): string {
  if (clientKey === undefined) return newId(`svc-${purpose}`);
  return `svc-${purpose}-${accountId}-${createHash('sha256').update(clientKey).digest('hex').slice(0, 32)}`;
}

/**
 * Funding the balance: a hosted checkout for `amount_usd` at the provider. Nothing is credited
 * here: the money arrives with the provider's signed webhook (`WebhookService`), once. With a
 * client `Idempotency-Key` a retried request for the same amount returns the same checkout (the
 * provider replays it); the key with another amount opens another checkout.
 */
export class CheckoutService {
  constructor(private readonly context: PaymentsContext) {}

  /** Opens a top-up checkout; 503 when payments are off, 502 when the provider fails. */
  async topUp(accountId: string, request: TopUpCheckoutRequest, idempotencyKey?: string): Promise<TopUpCheckout> {
    const provider = requireProvider(this.context);
    const customerId = await ensureCustomer(this.context, accountId);
    const amountCents = Math.round(request.amount_usd * 100);
    const { successUrl, cancelUrl } = returnUrls(this.context);
    const checkout = await callProvider(this.context, 'open the checkout', () =>
      provider.createTopUpCheckout({
        accountId,
        customerId,
        amountCents,
        successUrl,
        cancelUrl,
        idempotencyKey: providerIdempotencyKey(
          'topup',
          accountId,
          idempotencyKey && `${idempotencyKey}\u0000${amountCents}`,
        ),
      }),
    );
    return { ...checkout, amountMicros: usdToMicros(amountCents / 100) };
  }
}
