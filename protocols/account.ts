import { z } from 'zod';
import type { AccountRecord } from '../runtime/accounts/account-repo.js';
import type { TokenRecord } from '../runtime/accounts/token-repo.js';
import { microsToUsd } from './money.js';

/** Passwords: long enough to matter, short enough that scrypt input stays bounded. */
export const PasswordSchema = z.string().min(8, 'must be at least 8 characters').max(256);

/** E-mail addresses as accepted everywhere. */
export const EmailSchema = z.string().trim().pipe(z.email().max(254));

/** POST /v1/auth/register */
export const RegisterRequestSchema = z.looseObject({ email: EmailSchema, password: PasswordSchema });

/** POST /v1/auth/login; the password is not checked for shape, only for correctness. */
export const LoginRequestSchema = z.looseObject({ email: z.string().max(254), password: z.string().max(256) });

/** POST /v1/account/password */
export const ChangePasswordRequestSchema = z.looseObject({ current_password: z.string().max(256), new_password: PasswordSchema });

const RequestsPerMinuteSchema = z.number().int().min(1).max(1_000_000).nullable();
const LabelSchema = z.string().trim().min(1).max(100);

/** POST /v1/account/tokens */
export const CreateTokenRequestSchema = z.looseObject({
  label: LabelSchema.default('default'),
  requests_per_minute: RequestsPerMinuteSchema.default(null),
});

/** PATCH /v1/account/tokens/{token}: only the fields present change. */
export const PatchTokenRequestSchema = z.looseObject({
  label: LabelSchema.optional(),
  requests_per_minute: RequestsPerMinuteSchema.optional(),
  enabled: z.boolean().optional(),
});

/** The account overview on the wire. */
export function accountView(account: AccountRecord, held: number): Record<string, unknown> {
  return {
    object: 'account',
    id: account.id,
    email: account.email,
    status: account.status,
    balance_usd: microsToUsd(account.balance),
    held_usd: microsToUsd(held),
    available_usd: microsToUsd(account.balance - held),
    created_at: Math.floor(account.createdAt / 1000),
  };
}

/** A token as listed: never its value, only a masked form. */
export function tokenView(token: TokenRecord): Record<string, unknown> {
  return {
    object: 'api_token',
    id: token.id,
    label: token.label,
    masked_token: `sk-svc-…${token.lastFour}`,
    requests_per_minute: token.requestsPerMinute,
    enabled: token.enabled,
    created_at: Math.floor(token.createdAt / 1000),
  };
}
