import { z } from 'zod';

/** Every state an order can be in (the order machine's states). */
export const ORDER_STATES = ['pending_approval', 'placed', 'accepted', 'cancelled'] as const;

/** An order's state. */
export type OrderState = (typeof ORDER_STATES)[number];

/** What a pending action will carry out once confirmed. */
export const ORDER_ACTIONS = ['order', 'accept', 'cancel'] as const;

/** A state-changing order action. */
export type OrderAction = (typeof ORDER_ACTIONS)[number];

/** A listing id: `lst_` and 20 letters or digits. */
export const ListingIdSchema = z
  .string()
  .regex(/^lst_[0-9A-Za-z]{20}$/, 'must be a listing id (lst_ and 20 letters or digits)');

/** An order id: `ord_` and 20 letters or digits. */
export const OrderIdSchema = z
  .string()
  .regex(/^ord_[0-9A-Za-z]{20}$/, 'must be an order id (ord_ and 20 letters or digits)');

/** An approval id: `act_` and 20 letters or digits. */
export const ApprovalIdSchema = z
  .string()
  .regex(/^act_[0-9A-Za-z]{20}$/, 'must be an approval id (act_ and 20 letters or digits) from the first call');

/** The most units one order may have. */
export const MAX_ORDER_QUANTITY = 100;

/** One marketplace listing: what a seller offers, at what price per unit. */
export const ListingObjectSchema = z.strictObject({
  id: z.string(),
  object: z.literal('marketplace.listing'),
  title: z.string(),
  seller: z.string(),
  category: z.string(),
  description: z.string(),
  unit: z.string(),
  price_usd: z.number(),
  available: z.boolean(),
});

/** A listing on the wire. */
export type ListingObject = z.output<typeof ListingObjectSchema>;

/** What confirming an action moves, in USD: held from the balance, charged, or given back. */
export const MoneyEffectSchema = z.strictObject({
  holds_usd: z.number(),
  charges_usd: z.number(),
  releases_usd: z.number(),
});

/**
 * A state-changing action that waits for the caller's explicit approval: what it will do and cost,
 * until when it can be confirmed, and the exact call that confirms it.
 */
export const PendingActionObjectSchema = z.strictObject({
  object: z.literal('pending_action'),
  id: z.string(),
  action: z.enum(ORDER_ACTIONS),
  order_id: z.string(),
  summary: z.string(),
  cost_usd: z.number(),
  money: MoneyEffectSchema,
  expires_at: z.number().int(),
  confirm_with: z.strictObject({ tool: z.string(), arguments: z.record(z.string(), z.unknown()) }),
});

/** A pending action on the wire. */
export type PendingActionObject = z.output<typeof PendingActionObjectSchema>;

/** One order of a listing. */
export const OrderObjectSchema = z.strictObject({
  id: z.string(),
  object: z.literal('marketplace.order'),
  listing_id: z.string(),
  listing_title: z.string(),
  seller: z.string(),
  quantity: z.number().int(),
  unit_price_usd: z.number(),
  price_usd: z.number(),
  status: z.enum(ORDER_STATES),
  held_usd: z.number(),
  charged_usd: z.number(),
  cancel_reason: z.string().nullable(),
  pending_action: PendingActionObjectSchema.nullable(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
});

/** An order on the wire. */
export type OrderObject = z.output<typeof OrderObjectSchema>;

/**
 * The answer of a state-changing tool: `approval_required` (nothing carried out yet; confirm with
 * `pending_action.confirm_with`), `done` (carried out), or `declined` (the user said no when asked).
 */
export const OrderActionResultSchema = z.strictObject({
  object: z.literal('marketplace.order_action'),
  status: z.enum(['approval_required', 'done', 'declined']),
  action: z.enum(ORDER_ACTIONS),
  order: OrderObjectSchema,
  pending_action: PendingActionObjectSchema.nullable(),
});

/** A tool's order-action answer on the wire. */
export type OrderActionResult = z.output<typeof OrderActionResultSchema>;
