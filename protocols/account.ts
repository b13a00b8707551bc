import { z } from 'zod';

/** Passwords: long enough to matter, short enough that scrypt input stays bounded. */
export const PasswordSchema = z.string().min(8, 'must be at least 8 characters').max(256);

/** E-mail addresses as accepted everywhere. */
export const EmailSchema = z.string().trim().pipe(z.email().max(254));

/** POST /v1/auth/register */
export const RegisterRequestSchema = z.looseObject({ email: EmailSchema, password: PasswordSchema });

/** A TOTP code as typed: six digits (spaces ignored). */
export const TotpCodeSchema = z
  .string()
  .max(16)
  .transform((value) => value.replace(/\s/g, ''))
  .pipe(z.string().regex(/^\d{6}$/, 'must be the 6-digit code from the authenticator app'));

/** A recovery code as typed (case, spaces and dashes ignored when checked). */
export const RecoveryCodeSchema = z.string().min(1).max(64);

/**
 * POST /v1/auth/login; the password is not checked for shape, only for correctness. With two-factor
 * on, the same request again with `totp_code` (or `recovery_code`) completes the login.
 */
export const LoginRequestSchema = z.looseObject({
  email: z.string().max(254),
  password: z.string().max(256),
  totp_code: TotpCodeSchema.optional(),
  recovery_code: RecoveryCodeSchema.optional(),
});

/** POST /v1/account/password */
export const ChangePasswordRequestSchema = z.looseObject({
  current_password: z.string().max(256),
  new_password: PasswordSchema,
});

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

/** The account overview on the wire (GET /v1/account, login, admin). */
export const AccountObjectSchema = z.strictObject({
  object: z.literal('account'),
  id: z.string(),
  email: z.string(),
  status: z.enum(['active', 'suspended']),
  balance_usd: z.number(),
  held_usd: z.number(),
  available_usd: z.number(),
  email_verified: z.boolean(),
  two_factor_enabled: z.boolean(),
  /** The usage tier (see GET /v1/account/tier). */
  tier: z.string(),
  created_at: z.number().int(),
});

/** An account on the wire. */
export type AccountObject = z.output<typeof AccountObjectSchema>;

/** An API token as listed: never its value, only a masked form. */
export const ApiTokenObjectSchema = z.strictObject({
  object: z.literal('api_token'),
  id: z.string(),
  label: z.string(),
  masked_token: z.string(),
  requests_per_minute: z.number().int().nullable(),
  enabled: z.boolean(),
  created_at: z.number().int(),
});

/** An API token on the wire. */
export type ApiTokenObject = z.output<typeof ApiTokenObjectSchema>;

/** A parsed registration. */
export type RegisterRequest = z.output<typeof RegisterRequestSchema>;

/** A parsed login. */
export type LoginRequest = z.output<typeof LoginRequestSchema>;

/** A parsed password change. */
export type ChangePasswordRequest = z.output<typeof ChangePasswordRequestSchema>;

/** A parsed token creation. */
export type CreateTokenRequest = z.output<typeof CreateTokenRequestSchema>;

/** A parsed token change. */
export type PatchTokenRequest = z.output<typeof PatchTokenRequestSchema>;

/** GET /v1/account/usage query. */
export const AccountUsageQuerySchema = z.object({ limit: z.coerce.number().int().min(1).max(500).default(50) });

/** A login session on the wire (password change); its token is shown only here. */
export const LoginSessionObjectSchema = z.strictObject({
  object: z.literal('session'),
  token: z.string(),
  token_type: z.literal('session'),
  expires_at: z.number().int(),
});

/** A login session on the wire. */
export type LoginSessionObject = z.output<typeof LoginSessionObjectSchema>;

/** POST /v1/auth/register and /v1/auth/login: the new session and the account it opens. */
export const SignedInObjectSchema = LoginSessionObjectSchema.extend({ account: AccountObjectSchema });

/** A sign-in on the wire. */
export type SignedInObject = z.output<typeof SignedInObjectSchema>;

/** POST /v1/auth/logout. */
export const SessionRevokedObjectSchema = z.strictObject({ object: z.literal('session'), revoked: z.literal(true) });

/** A revoked session on the wire. */
export type SessionRevokedObject = z.output<typeof SessionRevokedObjectSchema>;

/** GET /v1/account/tokens. */
export const ApiTokenListObjectSchema = z.strictObject({
  object: z.literal('list'),
  data: z.array(ApiTokenObjectSchema),
});

/** A token list on the wire. */
export type ApiTokenListObject = z.output<typeof ApiTokenListObjectSchema>;

/** POST /v1/account/tokens: the token and, this once, its value. */
export const CreatedApiTokenObjectSchema = ApiTokenObjectSchema.extend({ token: z.string() });

/** A created token on the wire. */
export type CreatedApiTokenObject = z.output<typeof CreatedApiTokenObjectSchema>;

/** DELETE /v1/account/tokens/{token}. */
export const ApiTokenDeletedObjectSchema = z.strictObject({
  id: z.string(),
  object: z.literal('api_token'),
  deleted: z.literal(true),
});

/** A deleted token on the wire. */
export type ApiTokenDeletedObject = z.output<typeof ApiTokenDeletedObjectSchema>;

/** One movement of money as listed by GET /v1/account/usage; `amount_usd` is signed. */
export const LedgerEntryObjectSchema = z.strictObject({
  object: z.literal('ledger_entry'),
  id: z.string(),
  /** `reversal`: a refunded or disputed top-up taken back (negative), or a won dispute given back (positive). */
  type: z.enum(['topup', 'charge', 'reversal']),
  amount_usd: z.number(),
  balance_after_usd: z.number(),
  description: z.string(),
  request_id: z.string().nullable(),
  token_id: z.string().nullable(),
  model: z.string().nullable(),
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  created_at: z.number().int(),
});

/** GET /v1/account/usage: balance, recent entries (newest first) and the last 30 days' totals. */
export const AccountUsageObjectSchema = z.strictObject({
  object: z.literal('account.usage'),
  account_id: z.string(),
  balance_usd: z.number(),
  held_usd: z.number(),
  recent: z.array(LedgerEntryObjectSchema),
  last_30_days: z.strictObject({
    topups_usd: z.number(),
    charges_usd: z.number(),
    requests: z.number().int(),
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
    total_tokens: z.number().int(),
  }),
});

/** Account usage on the wire. */
export type AccountUsageObject = z.output<typeof AccountUsageObjectSchema>;

/** GET /v1/usage: what the calling API token has used. */
export const KeyUsageObjectSchema = z.strictObject({
  object: z.literal('usage'),
  token_id: z.string(),
  requests: z.number().int(),
  denied: z.number().int(),
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int(),
  cost_usd: z.number(),
  last_used_at: z.number().int().nullable(),
});

/** A token's usage on the wire. */
export type KeyUsageObject = z.output<typeof KeyUsageObjectSchema>;

/** POST /v1/account/password-reset/request: the address only (never told whether it has an account). */
export const PasswordResetRequestSchema = z.looseObject({ email: EmailSchema });

/** A single-use token from a mailed link. */
const LinkTokenSchema = z.string().min(1).max(200);

/** POST /v1/account/password-reset/confirm */
export const PasswordResetConfirmSchema = z.looseObject({ token: LinkTokenSchema, new_password: PasswordSchema });

/** A parsed reset confirmation. */
export type PasswordResetConfirm = z.output<typeof PasswordResetConfirmSchema>;

/** POST /v1/account/email-verification/confirm */
export const EmailVerificationConfirmSchema = z.looseObject({ token: LinkTokenSchema });

/** POST /v1/account/2fa/enable: a current code from the app just set up. */
export const TwoFactorEnableSchema = z.looseObject({ code: TotpCodeSchema });

/** POST /v1/account/2fa/disable: the password and a current code (or a recovery code). */
export const TwoFactorDisableSchema = z.looseObject({ password: z.string().max(256), code: RecoveryCodeSchema });

/** A parsed two-factor disable. */
export type TwoFactorDisable = z.output<typeof TwoFactorDisableSchema>;

/** The answer to a reset request: always this, whether or not the address has an account. */
export const PasswordResetRequestedObjectSchema = z.strictObject({
  object: z.literal('password_reset.request'),
  status: z.literal('ok'),
});

/** A reset request on the wire. */
export type PasswordResetRequestedObject = z.output<typeof PasswordResetRequestedObjectSchema>;

/** A completed reset: the password is set and every session ended. */
export const PasswordResetObjectSchema = z.strictObject({
  object: z.literal('password_reset'),
  status: z.literal('completed'),
  sessions_revoked: z.literal(true),
});

/** A completed reset on the wire. */
export type PasswordResetObject = z.output<typeof PasswordResetObjectSchema>;

/** The answer to a verification request. */
export const EmailVerificationRequestedObjectSchema = z.strictObject({
  object: z.literal('email_verification.request'),
  status: z.enum(['sent', 'already_verified']),
  expires_at: z.number().int().nullable(),
});

/** A verification request on the wire. */
export type EmailVerificationRequestedObject = z.output<typeof EmailVerificationRequestedObjectSchema>;

/** A confirmed address. */
export const EmailVerificationObjectSchema = z.strictObject({
  object: z.literal('email_verification'),
  email: z.string(),
  email_verified: z.literal(true),
});

/** A confirmed address on the wire. */
export type EmailVerificationObject = z.output<typeof EmailVerificationObjectSchema>;

/** POST /v1/account/2fa/setup: the secret three ways (text, otpauth:// URI, QR code PNG); shown until enabled. */
export const TwoFactorSetupObjectSchema = z.strictObject({
  object: z.literal('two_factor.setup'),
  secret: z.string(),
  otpauth_uri: z.string(),
  qr_code_png: z.string(),
  algorithm: z.literal('SHA1'),
  digits: z.literal(6),
  period: z.literal(30),
});

/** A two-factor setup on the wire. */
export type TwoFactorSetupObject = z.output<typeof TwoFactorSetupObjectSchema>;

/** Two-factor state; `recovery_codes` only in the answer to enable, the one time they are shown. */
export const TwoFactorObjectSchema = z.strictObject({
  object: z.literal('two_factor'),
  enabled: z.boolean(),
  enabled_at: z.number().int().nullable(),
  recovery_codes_remaining: z.number().int(),
  recovery_codes: z.array(z.string()).optional(),
});

/** Two-factor state on the wire. */
export type TwoFactorObject = z.output<typeof TwoFactorObjectSchema>;

/** GET /v1/early-access */
export const EarlyAccessObjectSchema = z.strictObject({
  object: z.literal('early_access'),
  restricted: z.literal(true),
  early_access: z.boolean(),
  signed_in: z.boolean(),
  products: z.array(z.string()),
  granted_products: z.array(z.string()),
});

/** Early access on the wire. */
export type EarlyAccessObject = z.output<typeof EarlyAccessObjectSchema>;

/** A POST that takes no fields (an empty body, or any JSON object, is accepted). */
export const EmptyRequestSchema = z.looseObject({});
