import { ApiError } from '../../protocols/errors.js';
import { emailVerificationMail, linkUrl, type MailedLinkDeps } from './account-mail.js';
import { AttemptLimiter } from './attempt-limiter.js';

/** What e-mail verification needs. */
export type EmailVerificationDeps = MailedLinkDeps;

/** Verification mails per account per hour (resends included). */
const PER_ACCOUNT_PER_HOUR = 5;

/** What a verification request did. */
export type VerificationRequested = { status: 'sent'; expiresAt: number } | { status: 'already_verified' };

/**
 * E-mail verification by mailed link: a signed-in account asks (resends allowed, rate-limited),
 * the link's single-use token confirms. Each request issues a fresh link; earlier unexpired links
 * stay valid until used, and any one of them proves the address.
 */
export class EmailVerificationService {
  private readonly perAccount: AttemptLimiter;

  constructor(private readonly deps: EmailVerificationDeps) {
    this.perAccount = new AttemptLimiter(deps.clock, { limit: PER_ACCOUNT_PER_HOUR, windowMs: 3_600_000 });
  }

  /** Sends (or resends) a verification link; 429 past the hourly limit. */
  async request(accountId: string): Promise<VerificationRequested> {
    const account = this.deps.services.accounts.get(accountId);
    if (!account) throw new ApiError('invalid_api_key', 'Invalid or expired session token.');
    if (account.emailVerifiedAt) return { status: 'already_verified' };
    const waitMs = this.perAccount.reserve(accountId);
    if (waitMs > 0)
      throw new ApiError('rate_limit_exceeded', 'Too many verification mails for this account; try again later.', {
        retryAfterMs: waitMs,
      });
    const { token, expiresAt } = await this.deps.links.issue('email_verification', account, this.deps.ttlMs);
    const message = emailVerificationMail(
      account.email,
      linkUrl(this.deps.publicUrl, '/account/verify-email', token),
      this.deps.ttlMs,
    );
    this.deps.background.run(
      'verification mail',
      { account_id: account.id },
      async () => void (await this.deps.mailer.send(message)),
    );
    return { status: 'sent', expiresAt };
  }

  /** Consumes a verification token; resolves with the address it proved. */
  confirm(token: string): Promise<string> {
    const { accounts } = this.deps.services;
    return this.deps.links.consume('email_verification', token, (link) => {
      const account = accounts.get(link.accountId);
      if (!account || account.email !== link.email)
        throw new ApiError('invalid_token', 'This link is not valid for the account any more.', { param: 'token' });
      if (!account.emailVerifiedAt) accounts.putInTransaction({ ...account, emailVerifiedAt: this.deps.clock.now() });
      return account.email;
    });
  }
}
