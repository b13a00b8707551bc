import { z } from 'zod';

// ---- Usage tiers: the ladder every self-serve account climbs (published in /v1/pricing) ----

/** The tier ladder's version; a change of thresholds or limits is a new version. */
export const TIER_LADDER_VERSION = 'tiers-2026-07-11';

/** Ids of the ladder's tiers, lowest first. */
export const TIER_IDS = ['free', 'tier-1', 'tier-2', 'tier-3', 'tier-4'] as const;

/** A tier of the ladder. */
export type TierId = (typeof TIER_IDS)[number];

/** A tier outside the ladder, set by the operator: no tier caps (per-token limits still apply). */
export const CUSTOM_TIER = 'custom';

/** One rung: what it takes (paid top-ups and account age) and the caps the perimeter enforces. */
export interface TierDefinition {
  id: TierId;
  name: string;
  /** Total paid through the payment provider, micro-USD. */
  minPaidMicros: number;
  minAccountAgeDays: number;
  /** Requests per minute of the whole account (every API token together). */
  requestsPerMinute: number;
  /** API requests in flight at once (streams included) for the whole account. */
  maxConcurrentRequests: number;
}

/** The ladder, lowest first. Operator credits do not count as paid: only provider payments do. */
export const TIER_LADDER: readonly TierDefinition[] = [
  { id: 'free', name: 'Free', minPaidMicros: 0, minAccountAgeDays: 0, requestsPerMinute: 60, maxConcurrentRequests: 4 },
  {
    id: 'tier-1',
    name: 'Tier 1',
    minPaidMicros: 5_000_000,
    minAccountAgeDays: 0,
    requestsPerMinute: 500,
    maxConcurrentRequests: 16,
  },
  {
    id: 'tier-2',
    name: 'Tier 2',
    minPaidMicros: 50_000_000,
    minAccountAgeDays: 7,
    requestsPerMinute: 2_000,
    maxConcurrentRequests: 64,
  },
  {
    id: 'tier-3',
    name: 'Tier 3',
    minPaidMicros: 250_000_000,
    minAccountAgeDays: 30,
    requestsPerMinute: 5_000,
    maxConcurrentRequests: 128,
  },
  {
    id: 'tier-4',
    name: 'Tier 4',
    minPaidMicros: 1_000_000_000,
    minAccountAgeDays: 90,
    requestsPerMinute: 10_000,
    maxConcurrentRequests: 256,
  },
];

/** The tier `id` of the ladder. */
export function tierDefinition(id: TierId): TierDefinition {
  return TIER_LADDER.find((tier) => tier.id === id)!;
}

const TierLimitsSchema = z.strictObject({
  requests_per_minute: z.number().int(),
  max_concurrent_requests: z.number().int(),
});

/** A rung of the ladder on the wire. */
export const TierObjectSchema = z.strictObject({
  id: z.enum(TIER_IDS),
  name: z.string(),
  requirements: z.strictObject({ paid_usd: z.number(), account_age_days: z.number().int() }),
  limits: TierLimitsSchema,
});

/** A rung on the wire. */
export type TierObject = z.output<typeof TierObjectSchema>;

/** The whole ladder as published (in `/v1/pricing` and `/v1/account/tier`). */
export function tierLadderView(): TierObject[] {
  return TIER_LADDER.map((tier) => ({
    id: tier.id,
    name: tier.name,
    requirements: { paid_usd: tier.minPaidMicros / 1_000_000, account_age_days: tier.minAccountAgeDays },
    limits: { requests_per_minute: tier.requestsPerMinute, max_concurrent_requests: tier.maxConcurrentRequests },
  }));
}

/** GET /v1/account/tier: the caller's tier, where it comes from, what the next needs, and the ladder. */
export const AccountTierObjectSchema = z.strictObject({
  object: z.literal('account.tier'),
  tier: z.union([z.enum(TIER_IDS), z.literal(CUSTOM_TIER)]),
  /** `ladder`: earned; `plan`: the subscription's floor; `operator`: set by the operator. */
  source: z.enum(['ladder', 'plan', 'operator']),
  /** The caps enforced now; null for `custom` (no tier caps). */
  limits: TierLimitsSchema.nullable(),
  paid_usd: z.number(),
  account_age_days: z.number().int(),
  next: z
    .strictObject({
      tier: z.enum(TIER_IDS),
      requirements: z.strictObject({ paid_usd: z.number(), account_age_days: z.number().int() }),
      /** What is still missing (0 when met). */
      missing: z.strictObject({ paid_usd: z.number(), account_age_days: z.number().int() }),
    })
    .nullable(),
  ladder_version: z.string(),
  ladder: z.array(TierObjectSchema),
});

/** The caller's tier on the wire. */
export type AccountTierObject = z.output<typeof AccountTierObjectSchema>;

// ---- Products behind early access and the waitlist ----

/** The work-in-progress products: restricted to accounts with an early-access grant. */
export const EARLY_ACCESS_PRODUCTS = ['marketplace', 'ai-companies'] as const;

/** A work-in-progress product. */
export type EarlyAccessProduct = (typeof EARLY_ACCESS_PRODUCTS)[number];

// ---- Subscription plans: versioned, granting tier floors and early access, never usage credits ----

/** The plan list's version (`/v1/account/subscription`). */
export const PLANS_VERSION = 'plans-2026-07';

/** A subscription plan; its id is the provider price's lookup key. */
export interface PlanDefinition {
  id: string;
  name: string;
  version: string;
  priceMicrosPerMonth: number;
  /** The lowest tier the plan's holder gets, whatever the ladder says. */
  tierFloor: TierId;
  earlyAccess: readonly EarlyAccessProduct[];
}

/** Purchasable plans. None includes usage credits: usage is pay as you go only (spec §1.4). */
export const PLANS: readonly PlanDefinition[] = [
  {
    id: 'plus-2026-07',
    name: 'Plus',
    version: '2026-07',
    priceMicrosPerMonth: 20_000_000,
    tierFloor: 'tier-2',
    earlyAccess: ['marketplace'],
  },
  {
    id: 'team-2026-07',
    name: 'Team',
    version: '2026-07',
    priceMicrosPerMonth: 100_000_000,
    tierFloor: 'tier-3',
    earlyAccess: ['marketplace', 'ai-companies'],
  },
];

/** Ids of the purchasable plans. */
export const PLAN_IDS = PLANS.map((plan) => plan.id) as [string, ...string[]];

/** The plan `id`, or undefined when it is not (or no longer) offered. */
export function planDefinition(id: string): PlanDefinition | undefined {
  return PLANS.find((plan) => plan.id === id);
}

/** A plan on the wire. */
export const PlanObjectSchema = z.strictObject({
  object: z.literal('plan'),
  id: z.string(),
  name: z.string(),
  version: z.string(),
  price_usd: z.number(),
  currency: z.literal('usd'),
  interval: z.literal('month'),
  grants: z.strictObject({ tier: z.enum(TIER_IDS), early_access: z.array(z.enum(EARLY_ACCESS_PRODUCTS)) }),
  /** Always 0: plans never fund usage. */
  usage_credits_usd: z.literal(0),
});

/** A plan on the wire. */
export type PlanObject = z.output<typeof PlanObjectSchema>;

/** Every plan on the wire. */
export function plansView(): PlanObject[] {
  return PLANS.map((plan) => ({
    object: 'plan',
    id: plan.id,
    name: plan.name,
    version: plan.version,
    price_usd: plan.priceMicrosPerMonth / 1_000_000,
    currency: 'usd',
    interval: 'month',
    grants: { tier: plan.tierFloor, early_access: [...plan.earlyAccess] },
    usage_credits_usd: 0,
  }));
}

/** Subscription states (the subscription machine's, as named in docs/payments.md). */
export const SUBSCRIPTION_STATES = ['active', 'cancel_at_period_end', 'past_due', 'ended'] as const;

/** A subscription on the wire. */
export const SubscriptionObjectSchema = z.strictObject({
  object: z.literal('subscription'),
  id: z.string(),
  plan: z.string().nullable(),
  status: z.enum(SUBSCRIPTION_STATES),
  current_period_end: z.number().int().nullable(),
  /** Access lasts until then (set once cancelled at period end). */
  cancel_at: z.number().int().nullable(),
  /** A cancel or change sent to the provider and not yet confirmed by its webhook. */
  pending: z
    .strictObject({ action: z.enum(['cancel', 'change']), plan: z.string().nullable(), requested_at: z.number().int() })
    .nullable(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
});

/** A subscription on the wire. */
export type SubscriptionObject = z.output<typeof SubscriptionObjectSchema>;

/** GET /v1/account/subscription: the current subscription (or null) and the plans. */
export const AccountSubscriptionObjectSchema = z.strictObject({
  object: z.literal('account.subscription'),
  subscription: SubscriptionObjectSchema.nullable(),
  plans_version: z.string(),
  plans: z.array(PlanObjectSchema),
});

/** The subscription overview on the wire. */
export type AccountSubscriptionObject = z.output<typeof AccountSubscriptionObjectSchema>;

// ---- Checkout ----

/** Top-up bounds: at least 5 USD (card fees), at most 10,000 USD per checkout, whole cents. */
export const TOPUP_MIN_USD = 5;
export const TOPUP_MAX_USD = 10_000;

/** POST /v1/account/checkout */
export const TopUpCheckoutRequestSchema = z.looseObject({
  amount_usd: z.number().min(TOPUP_MIN_USD).max(TOPUP_MAX_USD).multipleOf(0.01, 'whole cents only'),
});

/** A parsed top-up checkout. */
export type TopUpCheckoutRequest = z.output<typeof TopUpCheckoutRequestSchema>;

const PlanIdSchema = z.enum(PLAN_IDS);

/** POST /v1/account/subscription/checkout and /change */
export const PlanRequestSchema = z.looseObject({ plan: PlanIdSchema });

/** A hosted checkout on the wire: open its `url` to pay. */
export const CheckoutObjectSchema = z.strictObject({
  object: z.literal('checkout.session'),
  id: z.string(),
  url: z.string(),
  purpose: z.enum(['topup', 'subscription']),
  amount_usd: z.number(),
  currency: z.literal('usd'),
  plan: z.string().nullable(),
  expires_at: z.number().int().nullable(),
});

/** A checkout on the wire. */
export type CheckoutObject = z.output<typeof CheckoutObjectSchema>;

/** POST /v1/account/subscription/portal: the provider's hosted portal. */
export const PortalObjectSchema = z.strictObject({ object: z.literal('billing_portal.session'), url: z.string() });

/** A portal session on the wire. */
export type PortalObject = z.output<typeof PortalObjectSchema>;

/** The answer to a webhook delivery (any 2xx stops the provider's retries). */
export const WebhookAckObjectSchema = z.strictObject({ received: z.literal(true), duplicate: z.boolean() });

/** A webhook acknowledgement on the wire. */
export type WebhookAckObject = z.output<typeof WebhookAckObjectSchema>;
