import { z } from 'zod';
import { AccountObjectSchema, EmailSchema, PasswordSchema } from './account.js';
import { CUSTOM_TIER, EARLY_ACCESS_PRODUCTS, TIER_IDS } from './payments.js';

/** An operator's tier choice: `auto` (the ladder), `custom` (no tier caps) or a fixed rung. */
export const AdminTierSchema = z.enum(['auto', CUSTOM_TIER, ...TIER_IDS]);

const UsdAmount = z.number().positive().max(1_000_000).multipleOf(0.000001, 'at most six decimals (micro-USD)');
/** An opening credit may be zero (an account funded later). */
const OpeningCredit = z.number().min(0).max(1_000_000).multipleOf(0.000001, 'at most six decimals (micro-USD)');

/** POST /admin/v1/accounts */
export const AdminCreateAccountSchema = z.looseObject({
  email: EmailSchema,
  password: PasswordSchema.optional(),
  credit_usd: OpeningCredit.optional(),
  /** Operator-made accounts are `custom` (outside the self-serve ladder) unless said otherwise. */
  tier: AdminTierSchema.default(CUSTOM_TIER),
});

/** POST /admin/v1/accounts/{id}/credit */
export const AdminCreditSchema = z.looseObject({ usd: UsdAmount, description: z.string().max(200).optional() });

/** POST /admin/v1/accounts/{id}/status */
export const AdminStatusSchema = z.looseObject({ status: z.enum(['active', 'suspended']) });

/** POST /admin/v1/accounts/{id}/tier */
export const AdminSetTierSchema = z.looseObject({ tier: AdminTierSchema });

/** A parsed tier change. */
export type AdminSetTier = z.output<typeof AdminSetTierSchema>;

/** POST /admin/v1/accounts/{id}/early-access: grant one product. */
export const AdminEarlyAccessSchema = z.looseObject({ product: z.enum(EARLY_ACCESS_PRODUCTS) });

/** A parsed grant. */
export type AdminEarlyAccess = z.output<typeof AdminEarlyAccessSchema>;

/** GET /admin/v1/waitlist query. */
export const AdminWaitlistQuerySchema = z.object({
  product: z.enum(EARLY_ACCESS_PRODUCTS).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

/** The account's early-access grants, as the admin API shows them. */
export const AdminEarlyAccessObjectSchema = z.strictObject({
  object: z.literal('early_access.grants'),
  account_id: z.string(),
  products: z.array(
    z.strictObject({
      product: z.enum(EARLY_ACCESS_PRODUCTS),
      granted_at: z.number().int(),
      source: z.enum(['operator', 'plan']),
    }),
  ),
});

/** Grants on the admin wire. */
export type AdminEarlyAccessObject = z.output<typeof AdminEarlyAccessObjectSchema>;

/** GET /admin/v1/waitlist: confirmed sign-ups, newest first, contacts in full (the operator reaches them). */
export const AdminWaitlistObjectSchema = z.strictObject({
  object: z.literal('list'),
  data: z.array(
    z.strictObject({
      product: z.enum(EARLY_ACCESS_PRODUCTS),
      channel: z.enum(['email', 'sms']),
      contact: z.string(),
      confirmed_at: z.number().int(),
    }),
  ),
});

/** The waitlist on the admin wire. */
export type AdminWaitlistObject = z.output<typeof AdminWaitlistObjectSchema>;

/** A parsed account creation (API or CLI). */
export type AdminCreateAccount = z.output<typeof AdminCreateAccountSchema>;

/** A parsed credit (API or CLI). */
export type AdminCredit = z.output<typeof AdminCreditSchema>;

/** A parsed status change (API or CLI). */
export type AdminStatus = z.output<typeof AdminStatusSchema>;

/** GET /admin/v1/accounts/{id}, and the answer to a status change. */
export const AdminAccountObjectSchema = z.strictObject({ account: AccountObjectSchema });

/** An account as the admin API shows it. */
export type AdminAccountObject = z.output<typeof AdminAccountObjectSchema>;

/** POST /admin/v1/accounts: the account and its first API token, whose value is shown this once. */
export const AdminCreatedAccountObjectSchema = z.strictObject({
  account: AccountObjectSchema,
  api_token: z.strictObject({ id: z.string(), token: z.string() }),
});

/** A created account on the admin wire. */
export type AdminCreatedAccountObject = z.output<typeof AdminCreatedAccountObjectSchema>;

/** POST /admin/v1/accounts/{id}/credit: the account after the top-up and the ledger entry that made it. */
export const AdminCreditedObjectSchema = z.strictObject({ account: AccountObjectSchema, entry_id: z.string() });

/** A credit on the admin wire. */
export type AdminCreditedObject = z.output<typeof AdminCreditedObjectSchema>;

/** GET /admin/v1/machines: every machine's definition by name, as XState's JSON. */
export const MachineDefinitionsObjectSchema = z.strictObject({
  object: z.literal('list'),
  data: z.record(z.string(), z.unknown()),
});

/** Machine definitions on the admin wire. */
export type MachineDefinitionsObject = z.output<typeof MachineDefinitionsObjectSchema>;
