import { ApiError } from '../../protocols/errors.js';
import type { Clock } from '../../runtime/clock.js';
import type { SecretBox } from '../../runtime/secret-box.js';
import type { Store, Table } from '../../runtime/store/store.js';
import { AttemptLimiter } from './attempt-limiter.js';
import { matchRecoveryCode, newRecoveryCodes, newTotpSecret, recoveryCodeHash, totpStep } from './totp.js';

/** An account's two-factor state as stored. TOTP secrets are sealed (they must stay usable); recovery codes are hashed. */
export interface TwoFactorRecord {
  /** A secret set up and not yet confirmed by a code. */
  pending: { sealed: string; createdAt: number } | null;
  /** The active secret, and the last time step accepted (a code is accepted once). */
  enabled: { sealed: string; enabledAt: number; lastStep: number } | null;
  recovery: { hash: string; usedAt: number | null }[];
}

/** Which second factor a caller presents. */
export type SecondFactorInput = { totpCode?: string | undefined; recoveryCode?: string | undefined };

/** Failed second-factor attempts per account per 15 minutes before 429. */
const FAILURES_PER_WINDOW = 5;
const WINDOW_MS = 15 * 60_000;

/**
 * The second factor of an account: TOTP (RFC 6238, otpauth) with replay protection and single-use
 * recovery codes. The TOTP secret is sealed with the server's key (AES-256-GCM bound to the
 * account), recovery codes are SHA-256 hashes. Attempts are limited per account, each counted
 * before its code is checked (a right one clears the count), so codes sent at once cannot pass
 * the limit. Checks that consume something (a time step, a recovery code) commit in one
 * transaction, so two concurrent uses of one code cannot both pass.
 */
export class SecondFactor {
  private readonly records: Table<TwoFactorRecord>;
  private readonly failures: AttemptLimiter;

  constructor(
    private readonly store: Store,
    private readonly box: SecretBox,
    private readonly clock: Clock,
  ) {
    this.records = store.table<TwoFactorRecord>('two_factor');
    this.failures = new AttemptLimiter(clock, { limit: FAILURES_PER_WINDOW, windowMs: WINDOW_MS });
  }

  /** The stored state of `accountId`, if any. */
  get(accountId: string): TwoFactorRecord | undefined {
    return this.records.get(accountId);
  }

  /** Whether two-factor is on for `accountId`. */
  isEnabled(accountId: string): boolean {
    return this.records.get(accountId)?.enabled != null;
  }

  /** Starts (or restarts) a setup: a new secret, sealed and pending until a code confirms it. Returns the secret. */
  async setup(accountId: string): Promise<string> {
    const secret = newTotpSecret();
    await this.store.transaction(() => {
      const current = this.records.get(accountId);
      if (current?.enabled)
        throw new ApiError(
          'two_factor_enabled',
          'Two-factor authentication is already on; disable it first to set up a new secret.',
        );
      void this.records.put(accountId, {
        pending: { sealed: this.box.seal(secret, accountId), createdAt: this.clock.now() },
        enabled: null,
        recovery: [],
      });
    });
    return secret;
  }

  /** Confirms the pending secret with a current code and turns two-factor on; returns the recovery codes (shown once). */
  async enable(accountId: string, code: string): Promise<{ recoveryCodes: string[]; enabledAt: number }> {
    this.reserveAttempt(accountId);
    const codes = newRecoveryCodes();
    const result = await this.refundingOnThrow(accountId, () =>
      this.store.transaction(() => {
        const current = this.records.get(accountId);
        if (current?.enabled) throw new ApiError('two_factor_enabled', 'Two-factor authentication is already on.');
        if (!current?.pending)
          throw new ApiError(
            'two_factor_setup_required',
            'Call POST /v1/account/2fa/setup first, then enable with a code from the app.',
          );
        const now = this.clock.now();
        const step = totpStep(this.box.open(current.pending.sealed, accountId), code, now);
        if (step === null) return null;
        void this.records.put(accountId, {
          pending: null,
          enabled: { sealed: current.pending.sealed, enabledAt: now, lastStep: step },
          recovery: codes.map((c) => ({ hash: recoveryCodeHash(c), usedAt: null })),
        });
        return { enabledAt: now };
      }),
    );
    if (!result) throw wrongCode('invalid_code', 'code');
    this.failures.reset(accountId);
    return { recoveryCodes: codes, enabledAt: result.enabledAt };
  }

  /**
   * Checks a second factor for `accountId` and consumes it (the TOTP step, or the recovery code).
   * Throws 429 past the attempt limit, `refusal` (with `param`) when it does not match.
   */
  async verify(
    accountId: string,
    input: SecondFactorInput,
    refusal: 'invalid_second_factor' | 'invalid_code',
  ): Promise<'totp' | 'recovery_code'> {
    this.reserveAttempt(accountId);
    const used = await this.refundingOnThrow(accountId, () =>
      this.store.transaction(() => {
        const current = this.records.get(accountId);
        if (!current?.enabled) return null;
        const now = this.clock.now();
        if (input.totpCode !== undefined) {
          const step = totpStep(this.box.open(current.enabled.sealed, accountId), input.totpCode, now);
          // A step at or before the last one accepted is a replay within the window.
          if (step === null || step <= current.enabled.lastStep) return null;
          void this.records.put(accountId, { ...current, enabled: { ...current.enabled, lastStep: step } });
          return 'totp' as const;
        }
        if (input.recoveryCode === undefined) return null;
        const index = matchRecoveryCode(input.recoveryCode, current.recovery);
        if (index < 0) return null;
        void this.records.put(accountId, {
          ...current,
          recovery: current.recovery.map((entry, i) => (i === index ? { ...entry, usedAt: now } : entry)),
        });
        return 'recovery_code' as const;
      }),
    );
    if (!used) {
      const field = input.totpCode !== undefined ? 'totp_code' : 'recovery_code';
      throw wrongCode(refusal, refusal === 'invalid_code' ? 'code' : field);
    }
    this.failures.reset(accountId);
    return used;
  }

  /** Turns two-factor off (the caller has checked the password and a code). */
  async disable(accountId: string): Promise<void> {
    await this.records.remove(accountId);
  }

  /** Recovery codes not yet used. */
  remainingRecoveryCodes(accountId: string): number {
    return this.records.get(accountId)?.recovery.filter((entry) => entry.usedAt === null).length ?? 0;
  }

  /** Counts an attempt before its code is checked (a wrong code keeps it); 429 when none is left. */
  private reserveAttempt(accountId: string): void {
    const waitMs = this.failures.reserve(accountId);
    if (waitMs > 0)
      throw new ApiError('rate_limit_exceeded', 'Too many wrong two-factor codes; try again later.', {
        retryAfterMs: waitMs,
      });
  }

  /** Runs a code check; when it throws (already on, no setup, a store failure) no code was judged, so the attempt is given back. */
  private async refundingOnThrow<T>(accountId: string, check: () => Promise<T>): Promise<T> {
    try {
      return await check();
    } catch (err) {
      this.failures.refund(accountId);
      throw err;
    }
  }
}

function wrongCode(code: 'invalid_second_factor' | 'invalid_code', param: string): ApiError {
  return new ApiError(code, 'The two-factor code is wrong, expired or already used.', { param });
}
