import { z } from 'zod';
import type { PaymentEvent, ProviderSubscription, ProviderSubscriptionStatus } from '../payment-provider.js';

const MetadataSchema = z
  .record(z.string(), z.string())
  .nullish()
  .transform((value) => value ?? {});
const IdOrObject = z
  .union([z.string(), z.looseObject({ id: z.string() })])
  .nullish()
  .transform((value) => (value == null ? null : typeof value === 'string' ? value : value.id));

const CheckoutSessionSchema = z.looseObject({
  id: z.string(),
  mode: z.string(),
  payment_status: z.string(),
  payment_intent: IdOrObject,
  // Amounts here (and on charges and disputes) are any number: the service refuses an impossible
  // one (acknowledged, recorded, logged) instead of a 500 the provider retries for ever.
  amount_total: z.number().nullish(),
  currency: z.string().nullish(),
  client_reference_id: z.string().nullish(),
  customer: IdOrObject,
  subscription: IdOrObject,
  metadata: MetadataSchema,
});

const ChargeSchema = z.looseObject({ id: z.string(), payment_intent: IdOrObject, amount_refunded: z.number() });
const DisputeSchema = z.looseObject({
  id: z.string(),
  payment_intent: IdOrObject,
  amount: z.number(),
  status: z.string(),
});

const STATUSES = [
  'active',
  'trialing',
  'past_due',
  'unpaid',
  'incomplete',
  'incomplete_expired',
  'canceled',
  'paused',
] as const satisfies readonly ProviderSubscriptionStatus[];

const SubscriptionSchema = z.looseObject({
  id: z.string(),
  status: z.enum(STATUSES),
  cancel_at_period_end: z.boolean().nullish(),
  // Older API versions carry the period on the subscription, newer ones on each item.
  current_period_end: z.number().int().nullish(),
  customer: IdOrObject,
  metadata: MetadataSchema,
  items: z
    .looseObject({
      data: z.array(
        z.looseObject({
          current_period_end: z.number().int().nullish(),
          price: z.looseObject({ lookup_key: z.string().nullish() }).nullish(),
        }),
      ),
    })
    .nullish(),
});

const EventSchema = z.looseObject({
  id: z.string(),
  type: z.string(),
  created: z.number().int(),
  data: z.looseObject({ object: z.unknown() }),
});

/** A verified event whose body is not what its type promises. */
export class MalformedEventError extends Error {
  override name = 'MalformedEventError';
}

function parse<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new MalformedEventError(`${what}: ${result.error.issues[0]?.message ?? 'malformed'}`);
  return result.data;
}

function subscriptionOf(value: unknown): ProviderSubscription {
  const sub = parse(SubscriptionSchema, value, 'subscription');
  const item = sub.items?.data[0];
  const periodEnd = item?.current_period_end ?? sub.current_period_end ?? null;
  return {
    id: sub.id,
    accountId: sub.metadata.account_id ?? null,
    customerId: sub.customer,
    plan: item?.price?.lookup_key ?? sub.metadata.plan ?? null,
    status: sub.status,
    cancelAtPeriodEnd: sub.cancel_at_period_end === true,
    currentPeriodEnd: periodEnd === null ? null : periodEnd * 1000,
  };
}

/** Reduces a verified Stripe event (its parsed JSON) to what the service acts on. */
export function toPaymentEvent(raw: unknown): PaymentEvent {
  const event = parse(EventSchema, raw, 'event');
  const base = { eventId: event.id, created: event.created * 1000 };
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      const session = parse(CheckoutSessionSchema, event.data.object, 'checkout session');
      const accountId = session.metadata.account_id ?? session.client_reference_id ?? null;
      if (session.mode === 'subscription') {
        return {
          kind: 'subscription_checkout',
          ...base,
          checkoutId: session.id,
          accountId,
          customerId: session.customer,
          subscriptionId: session.subscription,
        };
      }
      // A delayed payment method completes the session unpaid; its money comes with async_payment_succeeded.
      if (session.mode !== 'payment' || session.payment_status !== 'paid' || session.metadata.purpose !== 'topup')
        return { kind: 'ignored', ...base, type: event.type };
      return {
        kind: 'topup_paid',
        ...base,
        checkoutId: session.id,
        accountId,
        customerId: session.customer,
        amountCents: session.amount_total ?? 0,
        currency: session.currency ?? '',
        paymentIntentId: session.payment_intent,
      };
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
      return {
        kind: 'subscription',
        ...base,
        deleted: event.type === 'customer.subscription.deleted',
        subscription: subscriptionOf(event.data.object),
      };
    case 'charge.refunded': {
      const charge = parse(ChargeSchema, event.data.object, 'charge');
      return { kind: 'refund', ...base, paymentIntentId: charge.payment_intent, refundedCents: charge.amount_refunded };
    }
    case 'charge.dispute.created':
    case 'charge.dispute.closed': {
      const dispute = parse(DisputeSchema, event.data.object, 'dispute');
      // An inquiry closed without becoming a chargeback (`warning_closed`) gives back what it took, as a won dispute.
      const status =
        event.type === 'charge.dispute.created'
          ? 'opened'
          : dispute.status === 'won' || dispute.status === 'warning_closed'
            ? 'won'
            : 'lost';
      return {
        kind: 'dispute',
        ...base,
        paymentIntentId: dispute.payment_intent,
        disputeId: dispute.id,
        amountCents: dispute.amount,
        status,
      };
    }
    default:
      return { kind: 'ignored', ...base, type: event.type };
  }
}
