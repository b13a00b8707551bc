import type { VerificationRequested } from '../../actors/accounts/email-verification-service.js';
import type { EarlyAccessStatus } from '../../actors/accounts/early-access.js';
import type { TwoFactorSetup, TwoFactorStatus } from '../../actors/accounts/two-factor-service.js';
import type {
  EarlyAccessObject,
  EmailVerificationObject,
  EmailVerificationRequestedObject,
  PasswordResetObject,
  PasswordResetRequestedObject,
  TwoFactorObject,
  TwoFactorSetupObject,
} from '../../protocols/account.js';
import { EARLY_ACCESS_PRODUCTS } from '../../protocols/payments.js';

const seconds = (ms: number) => Math.floor(ms / 1000);

/** The answer to every reset request, whether or not the address has an account. */
export function passwordResetRequestedView(): PasswordResetRequestedObject {
  return { object: 'password_reset.request', status: 'ok' };
}

/** A completed reset. */
export function passwordResetView(): PasswordResetObject {
  return { object: 'password_reset', status: 'completed', sessions_revoked: true };
}

/** What a verification request did. */
export function emailVerificationRequestedView(requested: VerificationRequested): EmailVerificationRequestedObject {
  return {
    object: 'email_verification.request',
    status: requested.status,
    expires_at: requested.status === 'sent' ? seconds(requested.expiresAt) : null,
  };
}

/** A proven address. */
export function emailVerificationView(email: string): EmailVerificationObject {
  return { object: 'email_verification', email, email_verified: true };
}

/** A two-factor setup: the secret three ways, shown until enabled. */
export function twoFactorSetupView(setup: TwoFactorSetup): TwoFactorSetupObject {
  return {
    object: 'two_factor.setup',
    secret: setup.secret,
    otpauth_uri: setup.uri,
    qr_code_png: setup.qrCodePng,
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
  };
}

/** Two-factor state; the recovery codes only right after enabling. */
export function twoFactorView(status: TwoFactorStatus): TwoFactorObject {
  return {
    object: 'two_factor',
    enabled: status.enabled,
    enabled_at: status.enabledAt === null ? null : seconds(status.enabledAt),
    recovery_codes_remaining: status.recoveryCodesRemaining,
    ...(status.recoveryCodes && { recovery_codes: status.recoveryCodes }),
  };
}

/** What a visitor may see of the work-in-progress products. */
export function earlyAccessView(status: EarlyAccessStatus): EarlyAccessObject {
  return {
    object: 'early_access',
    restricted: true,
    early_access: status.granted.length > 0,
    signed_in: status.signedIn,
    products: [...EARLY_ACCESS_PRODUCTS],
    granted_products: status.granted,
  };
}
