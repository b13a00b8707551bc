import { ApiError } from '../../protocols/errors.js';
import type { Clock } from '../../runtime/clock.js';
import { newSecret, sha256Hex } from '../../runtime/ids.js';
import type { Store, Table } from '../../runtime/store/store.js';

/** What a mailed link is for. */
export type LinkPurpose = 'password_reset' | 'email_verification';

const PREFIX: Record<LinkPurpose, string> = { password_reset: 'pwr_', email_verification: 'emv_' };

/** A link token as stored, under the SHA-256 of its value (the value itself is only in the mail). */
export interface LinkTokenRecord {
  purpose: LinkPurpose;
  accountId: string;
  /** The address it was mailed to. */
  email: string;
  /** The account's session epoch when issued: a password change since voids a reset link. */
  epoch: number;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

/** How long used and expired records are kept, so a replay is told apart from a typo. */
const KEEP_AFTER_EXPIRY_MS = 86_400_000;
const SWEEP_EVERY_MS = 60_000;

/**
 * Single-use tokens for mailed links (password reset, e-mail verification): 256-bit values,
 * stored only as SHA-256, each with a short lifetime. Consuming one marks it used in the same
 * transaction as what it authorises, so two concurrent uses cannot both succeed.
 */
export class LinkTokens {
  private readonly tokens: Table<LinkTokenRecord>;
  private readonly byExpiry: Table<true>;
  private lastSweep = 0;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {
    this.tokens = store.table<LinkTokenRecord>('link_tokens');
    this.byExpiry = store.table<true>('link_tokens_by_expiry');
  }

  /** Issues a token for `purpose`; its value is returned once (for the mail) and never stored. */
  async issue(
    purpose: LinkPurpose,
    account: { id: string; email: string; sessionEpoch: number },
    ttlMs: number,
  ): Promise<{ token: string; expiresAt: number }> {
    const now = this.clock.now();
    const token = newSecret(PREFIX[purpose]);
    const hash = sha256Hex(token);
    const record: LinkTokenRecord = {
      purpose,
      accountId: account.id,
      email: account.email,
      epoch: account.sessionEpoch,
      createdAt: now,
      expiresAt: now + ttlMs,
      usedAt: null,
    };
    await this.store.transaction(() => {
      void this.tokens.put(hash, record);
      void this.byExpiry.put([record.expiresAt, hash], true);
    });
    if (now - this.lastSweep >= SWEEP_EVERY_MS) await this.sweep(now);
    return { token, expiresAt: record.expiresAt };
  }

  /**
   * Consumes `token` for `purpose` and runs `apply` in the same transaction (it may throw to refuse;
   * then the token stays unused). 400 `invalid_token` when unknown, 400 `token_expired`, 409
   * `token_used` when already consumed.
   */
  consume<T>(purpose: LinkPurpose, token: string, apply: (record: LinkTokenRecord) => T): Promise<T> {
    const hash = sha256Hex(token);
    return this.store.transaction(() => {
      const record = this.tokens.get(hash);
      if (!record || record.purpose !== purpose)
        throw new ApiError('invalid_token', 'This link is not valid: ask for a new one.', { param: 'token' });
      if (record.usedAt !== null)
        throw new ApiError('token_used', 'This link was already used (links are single use): ask for a new one.', {
          param: 'token',
        });
      if (record.expiresAt <= this.clock.now())
        throw new ApiError('token_expired', 'This link has expired: ask for a new one.', { param: 'token' });
      const result = apply(record);
      void this.tokens.put(hash, { ...record, usedAt: this.clock.now() });
      return result;
    });
  }

  /** Deletes records well past their expiry. */
  private async sweep(now: number): Promise<void> {
    this.lastSweep = now;
    await this.store.transaction(() => {
      for (const key of this.byExpiry.getKeys({ end: [now - KEEP_AFTER_EXPIRY_MS], limit: 1000 })) {
        const hash = (key as [number, string])[1];
        void this.tokens.remove(hash);
        void this.byExpiry.remove(key);
      }
    });
  }
}
