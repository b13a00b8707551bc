import { ApiError } from '../../protocols/errors.js';
import type { PasswordResetConfirm } from '../../protocols/account.js';
import { linkUrl, passwordResetMail, type MailedLinkDeps } from './account-mail.js';
import { normaliseEmail } from './account-repo.js';
import { AttemptLimiter } from './attempt-limiter.js';
import { hashPassword } from './passwords.js';

/** What the reset flow needs. */
export type PasswordResetDeps = MailedLinkDeps;

/** Reset requests per address per hour: past it, requests are still answered ok but send nothing. */
const PER_ADDRESS_PER_HOUR = 3;
/** Reset requests per client address per hour: past it, 429. */
const PER_CLIENT_PER_HOUR = 20;
const HOUR_MS = 3_600_000;

/**
 * Password reset by mailed link. A request always answers the same, at once: the account lookup,
 * the token and the mail happen afterwards in the background, so neither the answer nor its
 * timing says whether the address has an account. Confirming consumes the single-use token, sets
 * the password and ends every session (the account's session epoch moves on, which also voids
 * every other reset link issued before).
 */
export class PasswordResetService {
  private readonly perAddress: AttemptLimiter;
  private readonly perClient: AttemptLimiter;

  constructor(private readonly deps: PasswordResetDeps) {
    this.perAddress = new AttemptLimiter(deps.clock, { limit: PER_ADDRESS_PER_HOUR, windowMs: HOUR_MS });
    this.perClient = new AttemptLimiter(deps.clock, { limit: PER_CLIENT_PER_HOUR, windowMs: HOUR_MS });
  }

  /** Takes a reset request for `email` from `client` (its network address); 429 past the client's limit. */
  request(email: string, client: string): void {
    const waitMs = this.perClient.reserve(client);
    if (waitMs > 0)
      throw new ApiError(
        'rate_limit_exceeded',
        'Too many password-reset requests from this address; try again later.',
        { retryAfterMs: waitMs },
      );
    const address = normaliseEmail(email);
    // Over the per-address limit the answer stays the same; nothing is sent (no mail bombing).
    if (this.perAddress.reserve(address) > 0) return;
    this.deps.background.run('password reset mail', {}, () => this.deliver(address));
  }

  private async deliver(address: string): Promise<void> {
    const account = this.deps.services.accounts.findByEmail(address);
    if (!account || account.status !== 'active') return;
    const { token } = await this.deps.links.issue('password_reset', account, this.deps.ttlMs);
    const link = linkUrl(this.deps.publicUrl, '/account/reset-password', token);
    await this.deps.mailer.send(passwordResetMail(account.email, link, this.deps.ttlMs));
  }

  /** Consumes the token, sets the new password, marks the address proven and ends every session. */
  async confirm(request: PasswordResetConfirm): Promise<void> {
    const passwordHash = await hashPassword(request.new_password);
    const { accounts } = this.deps.services;
    await this.deps.links.consume('password_reset', request.token, (link) => {
      const account = accounts.get(link.accountId);
      // A password change (or an earlier reset) since the link was sent voids it.
      if (!account || account.sessionEpoch !== link.epoch || account.email !== link.email) {
        throw new ApiError(
          'token_expired',
          'This link is no longer valid (the password changed since it was sent): ask for a new one.',
          { param: 'token' },
        );
      }
      accounts.putInTransaction({
        ...account,
        passwordHash,
        sessionEpoch: account.sessionEpoch + 1,
        emailVerifiedAt: account.emailVerifiedAt ?? this.deps.clock.now(),
      });
    });
  }
}
