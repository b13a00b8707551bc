import { randomBytes } from 'node:crypto';
import * as OTPAuth from 'otpauth';
import { constantTimeEqual, sha256Hex } from '../../runtime/ids.js';

/** RFC 6238 parameters every authenticator app understands: SHA-1, 6 digits, 30-second steps. */
export const TOTP_PERIOD_S = 30;
export const TOTP_DIGITS = 6;
/** Steps either side of now a code may come from (clock drift). */
const WINDOW = 1;
const ISSUER = 'svc';

function totp(secret: string, label: string): OTPAuth.TOTP {
  return new OTPAuth.TOTP({
    issuer: ISSUER,
    label,
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_S,
    secret: OTPAuth.Secret.fromBase32(secret),
  });
}

/** A new TOTP secret (160 random bits), base32 as apps take it. */
export function newTotpSecret(): string {
  return new OTPAuth.Secret({ size: 20 }).base32;
}

/** The `otpauth://totp/...` URI an app scans. */
export function totpUri(secret: string, label: string): string {
  return totp(secret, label).toString();
}

/** The code for `secret` at `now` (ms); for tests and tools. */
export function totpCode(secret: string, now: number): string {
  return totp(secret, 'code').generate({ timestamp: now });
}

/**
 * The time step `code` belongs to when it is valid for `secret` at `now` (±1 step), else null.
 * The caller accepts a step only once (a code is not accepted again in its window).
 */
export function totpStep(secret: string, code: string, now: number): number | null {
  const delta = totp(secret, 'check').validate({ token: code, timestamp: now, window: WINDOW });
  return delta === null ? null : Math.floor(now / 1000 / TOTP_PERIOD_S) + delta;
}

const RECOVERY_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';

/** Ten recovery codes, each 80 random bits shown as `xxxx-xxxx-xxxx-xxxx`. */
export function newRecoveryCodes(count = 10): string[] {
  return Array.from({ length: count }, () => {
    const bytes = randomBytes(16);
    const chars = Array.from(bytes, (byte) => RECOVERY_ALPHABET[byte % 32]!).join('');
    return chars.match(/.{4}/g)!.join('-');
  });
}

/** A recovery code as stored: SHA-256 of its canonical form (case, spaces and dashes ignored). */
export function recoveryCodeHash(code: string): string {
  return sha256Hex(code.toLowerCase().replace(/[^a-z0-9]/g, ''));
}

/** The index of the unused stored hash `code` matches, compared in constant time against every one; -1 when none. */
export function matchRecoveryCode(code: string, stored: readonly { hash: string; usedAt: number | null }[]): number {
  const hash = recoveryCodeHash(code);
  let found = -1;
  stored.forEach((entry, index) => {
    if (constantTimeEqual(hash, entry.hash) && entry.usedAt === null && found < 0) found = index;
  });
  return found;
}
