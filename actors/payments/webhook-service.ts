import { WebhookVerificationError, type PaymentEvent } from '../../backends/payment-provider.js';
import { ApiError } from '../../protocols/errors.js';
import { TOPUP_MAX_USD } from '../../protocols/payments.js';
import type { Logger } from '../../runtime/logger.js';
import type { Reversal } from './payment-repo.js';
import type { PaymentsContext } from './payments-context.js';
import type { SubscriptionService } from './subscription-service.js';

/** What a delivery came to: whether it had been handled before. */
export interface WebhookOutcome {
  duplicate: boolean;
  outcome: string;
}

/** Micro-USD per cent. */
const MICROS_PER_CENT = 10_000;

/** Whether `cents` can be an amount of money: whole, not negative, exact in micro-USD. */
function isCentAmount(cents: number): boolean {
  return Number.isInteger(cents) && cents >= 0 && Number.isSafeInteger(cents * MICROS_PER_CENT);
}

/**
 * The provider's signed webhooks. Every delivery is verified first (signature and timestamp, by
 * the provider's SDK, against the raw body): a forged, altered or stale one is 400
 * `invalid_signature` and changes nothing. A paid top-up is credited once per provider event id
 * and once per checkout, atomically with the reservation of the event id; subscription events
 * drive the subscription machines; anything else is acknowledged and recorded. A delivery is
 * acknowledged only once what it changed is on disk.
 */
export class WebhookService {
  constructor(
    private readonly context: PaymentsContext,
    private readonly subscriptions: SubscriptionService,
  ) {}

  /** Whether webhooks can be received (payments configured). */
  get enabled(): boolean {
    return this.context.provider !== null;
  }

  /** Verifies and handles one delivery; `log` is the request's logger (its lines name the request). */
  async receive(
    payload: Buffer,
    signature: string | undefined,
    log: Logger = this.context.logger,
  ): Promise<WebhookOutcome> {
    const provider = this.context.provider;
    if (!provider) throw new ApiError('payments_not_configured', 'Payments are not configured on this server.');
    let event: PaymentEvent;
    try {
      event = await provider.verifyEvent(payload, signature, this.context.clock.now());
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      log.warn('webhook refused', { reason: err.message });
      throw new ApiError('invalid_signature', `Webhook refused: ${err.message}.`, { param: 'Stripe-Signature' });
    }
    const outcome = await this.handle(event, log);
    // The answer tells the provider to stop retrying: what it acknowledges must be on disk first,
    // not only committed (LMDB's overlapping sync makes a commit visible before it is durable).
    await this.context.repo.durable();
    return outcome;
  }

  private async handle(event: PaymentEvent, log: Logger): Promise<WebhookOutcome> {
    switch (event.kind) {
      case 'topup_paid':
        return this.topUp(event, log);
      case 'subscription': {
        const outcome = await this.subscriptions.apply(event.eventId, event.created, event.subscription, event.deleted);
        return this.record(event.eventId, 'subscription', outcome);
      }
      case 'subscription_checkout':
        if (event.accountId && event.customerId && this.context.accounts.get(event.accountId))
          await this.context.repo.linkCustomer(event.accountId, event.customerId);
        return this.record(event.eventId, 'subscription_checkout', 'linked');
      case 'refund':
      case 'dispute':
        return this.reverse(event, log);
      case 'ignored':
        return this.record(event.eventId, event.type, 'ignored');
    }
  }

  private async topUp(event: Extract<PaymentEvent, { kind: 'topup_paid' }>, log: Logger): Promise<WebhookOutcome> {
    const problem = this.topUpProblem(event);
    if (problem) {
      // Verified, so genuinely the provider's: kept as handled (no retry storm) and logged loudly for the operator.
      log.error('paid top-up not credited', {
        event_id: event.eventId,
        checkout_id: event.checkoutId,
        reason: problem,
      });
      return this.record(event.eventId, 'topup_paid', `rejected:${problem}`);
    }
    const amountMicros = event.amountCents * MICROS_PER_CENT;
    const result = await this.context.repo.creditTopUp({
      eventId: event.eventId,
      checkoutId: event.checkoutId,
      accountId: event.accountId!,
      amountMicros,
      description: `top-up via checkout ${event.checkoutId}`,
      paymentIntentId: event.paymentIntentId,
    });
    if (result.kind === 'credited')
      log.info('top-up credited', {
        event_id: event.eventId,
        account_id: event.accountId,
        amount_micros: amountMicros,
        entry_id: result.entry.id,
      });
    if (result.kind === 'rejected')
      log.error('paid top-up not credited', {
        event_id: event.eventId,
        checkout_id: event.checkoutId,
        reason: result.why,
      });
    return { duplicate: result.kind === 'duplicate_event', outcome: result.kind };
  }

  /** A refund or dispute of a paid top-up: the money it takes back (or gives back) moves once. */
  private async reverse(
    event: Extract<PaymentEvent, { kind: 'refund' | 'dispute' }>,
    log: Logger,
  ): Promise<WebhookOutcome> {
    const cents = event.kind === 'refund' ? event.refundedCents : event.amountCents;
    if (!isCentAmount(cents)) {
      // Verified, so genuinely the provider's, yet no payment has such an amount: kept as handled
      // (no retry storm) and logged loudly for the operator, like a top-up that cannot be credited.
      log.error('refund or dispute not applied', {
        event_id: event.eventId,
        kind: event.kind,
        reason: 'amount',
        amount_cents: cents,
      });
      return this.record(event.eventId, event.kind, 'rejected:amount');
    }
    if (!event.paymentIntentId) return this.record(event.eventId, event.kind, 'ignored:no_payment');
    const reversal: Reversal =
      event.kind === 'refund'
        ? {
            kind: 'refund',
            eventId: event.eventId,
            paymentIntentId: event.paymentIntentId,
            refundedMicros: event.refundedCents * MICROS_PER_CENT,
          }
        : {
            kind: 'dispute',
            eventId: event.eventId,
            paymentIntentId: event.paymentIntentId,
            disputeId: event.disputeId,
            amountMicros: event.amountCents * MICROS_PER_CENT,
            status: event.status,
          };
    const result = await this.context.repo.reverseTopUp(reversal);
    if (result.kind === 'reversed' && result.micros !== 0)
      log.warn('top-up reversed', {
        event_id: event.eventId,
        account_id: result.accountId,
        kind: event.kind,
        micros: result.micros,
      });
    if (result.kind === 'unknown_payment')
      log.warn('refund or dispute of an unknown payment', { event_id: event.eventId });
    return { duplicate: result.kind === 'duplicate_event', outcome: result.kind };
  }

  /** Why a paid top-up cannot be credited as it stands; null when it can. */
  private topUpProblem(event: Extract<PaymentEvent, { kind: 'topup_paid' }>): string | null {
    if (event.currency.toLowerCase() !== 'usd') return 'currency';
    if (!isCentAmount(event.amountCents) || event.amountCents <= 0 || event.amountCents > TOPUP_MAX_USD * 100)
      return 'amount';
    if (!event.accountId || !this.context.accounts.get(event.accountId)) return 'unknown_account';
    const linked = event.customerId ? this.context.repo.accountOfCustomer(event.customerId) : undefined;
    if (linked !== undefined && linked !== event.accountId) return 'customer_of_another_account';
    return null;
  }

  private async record(eventId: string, kind: string, outcome: string): Promise<WebhookOutcome> {
    const first = await this.context.repo.recordEvent(eventId, kind, outcome);
    return { duplicate: !first, outcome };
  }
}
