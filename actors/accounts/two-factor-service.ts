import QRCode from 'qrcode';
import { ApiError } from '../../protocols/errors.js';
import type { TwoFactorDisable } from '../../protocols/account.js';
import type { AccountServices } from './account-services.js';
import type { Authenticator } from './authenticator.js';
import type { SecondFactor } from './second-factor.js';
import { totpUri } from './totp.js';

/** A setup to show the user once: the secret as text, as an otpauth:// URI and as a QR code (PNG data URL). */
export interface TwoFactorSetup {
  secret: string;
  uri: string;
  qrCodePng: string;
}

/** Two-factor state as the account holder sees it. */
export interface TwoFactorStatus {
  enabled: boolean;
  enabledAt: number | null;
  recoveryCodesRemaining: number;
  /** Only right after enabling: the codes, shown this once. */
  recoveryCodes?: string[];
}

const TOTP_CODE = /^\d{6}$/;

/**
 * Two-factor authentication for the signed-in account holder: set up (secret, URI, QR code),
 * enable with a code (recovery codes returned once), disable with the password and a code (or a
 * recovery code). Login's second step goes through the `Authenticator`.
 */
export class TwoFactorService {
  constructor(
    private readonly services: AccountServices,
    private readonly factor: SecondFactor,
    /** Checks the password on disable, under the login's per-e-mail failure limit. */
    private readonly auth: Authenticator,
  ) {}

  /** Starts a setup; 409 when two-factor is already on. */
  async setup(accountId: string): Promise<TwoFactorSetup> {
    const account = this.services.accounts.get(accountId);
    if (!account) throw new ApiError('invalid_api_key', 'Invalid or expired session token.');
    const secret = await this.factor.setup(accountId);
    const uri = totpUri(secret, account.email);
    return {
      secret,
      uri,
      qrCodePng: await QRCode.toDataURL(uri, { errorCorrectionLevel: 'M', margin: 2, width: 256 }),
    };
  }

  /** Enables two-factor with a code from the app just set up. */
  async enable(accountId: string, code: string): Promise<TwoFactorStatus> {
    const { recoveryCodes, enabledAt } = await this.factor.enable(accountId, code);
    return { enabled: true, enabledAt, recoveryCodesRemaining: recoveryCodes.length, recoveryCodes };
  }

  /** Disables two-factor: the password (401 when wrong, 429 past the per-e-mail limit) and a current code or a recovery code (400 when wrong). */
  async disable(accountId: string, request: TwoFactorDisable): Promise<TwoFactorStatus> {
    const account = this.services.accounts.get(accountId);
    if (!account) throw new ApiError('invalid_api_key', 'Invalid or expired session token.');
    if (!this.factor.isEnabled(accountId))
      throw new ApiError('two_factor_not_enabled', 'Two-factor authentication is not on.');
    await this.auth.confirmPassword(account, request.password, { param: 'password' });
    const code = request.code.replace(/\s/g, '');
    await this.factor.verify(
      accountId,
      TOTP_CODE.test(code) ? { totpCode: code } : { recoveryCode: request.code },
      'invalid_code',
    );
    await this.factor.disable(accountId);
    return { enabled: false, enabledAt: null, recoveryCodesRemaining: 0 };
  }

  /** Whether two-factor is on, since when, and how many recovery codes are left. */
  status(accountId: string): TwoFactorStatus {
    const record = this.factor.get(accountId);
    return {
      enabled: record?.enabled != null,
      enabledAt: record?.enabled?.enabledAt ?? null,
      recoveryCodesRemaining: this.factor.remainingRecoveryCodes(accountId),
    };
  }
}
