import { z } from 'zod';
import { EmailSchema, PasswordSchema } from './account.js';

const UsdAmount = z.number().positive().max(1_000_000).multipleOf(0.000001, 'at most six decimals (micro-USD)');

/** POST /admin/v1/accounts */
export const AdminCreateAccountSchema = z.looseObject({
  email: EmailSchema,
  password: PasswordSchema.optional(),
  credit_usd: UsdAmount.optional(),
});

/** POST /admin/v1/accounts/{id}/credit */
export const AdminCreditSchema = z.looseObject({ usd: UsdAmount, description: z.string().max(200).optional() });

/** POST /admin/v1/accounts/{id}/status */
export const AdminStatusSchema = z.looseObject({ status: z.enum(['active', 'suspended']) });
