import { ApiError } from '../../protocols/errors.js';
import type { ChangePasswordRequest, LoginRequest, RegisterRequest } from '../../protocols/account.js';
import type { AccountOverview, AccountService } from './account-service.js';
import type { AccountServices } from './account-services.js';
import type { Authenticator } from './authenticator.js';
import { hashPassword } from './passwords.js';

/** A new login session: its token (shown once) and when it expires (epoch ms). */
export interface LoginSession {
  token: string;
  expiresAt: number;
}

/** A sign-in: the session it opened and the account behind it. */
export interface SignedIn extends AccountOverview {
  session: LoginSession;
}

/**
 * Browser-style sign-in with e-mail and password: register, log in (two steps with two-factor on;
 * the credentials are checked by the `Authenticator`, the one authentication path), log out, and
 * change the password (which ends every other session at once).
 */
export class LoginService {
  constructor(
    private readonly services: AccountServices,
    private readonly auth: Authenticator,
    private readonly overviews: AccountService,
  ) {}

  /** Creates an account (no credit, no API token) and signs it in; 409 `email_taken` when the address is in use. */
  async register(request: RegisterRequest): Promise<SignedIn> {
    const created = await this.services.createAccount({
      email: request.email,
      password: request.password,
      creditMicros: 0,
      tokenLabel: null,
    });
    if (!created)
      throw new ApiError('email_taken', 'An account with this e-mail already exists; log in instead.', {
        param: 'email',
      });
    const session = await this.openSession(created.account.id, created.account.sessionEpoch);
    return { ...this.overviews.overview(created.account.id), session };
  }

  /**
   * Signs in with e-mail and password (and the second factor when on) from `client` (its network
   * address, for the failure limit); 401 for either wrong (in the same time), 403 when suspended.
   */
  async login(request: LoginRequest, client: string): Promise<SignedIn> {
    const account = await this.auth.passwordLogin(request, client);
    const session = await this.openSession(account.id, account.sessionEpoch);
    return { ...this.overviews.overview(account.id), session };
  }

  /** Ends the session behind `sessionToken`. */
  logout(sessionToken: string): Promise<void> {
    return this.services.sessions.revoke(sessionToken);
  }

  /**
   * Checks the current password (under the login's per-e-mail failure limit, 429 past it), stores
   * the new one and revokes every session; the caller moves onto the session returned.
   */
  async changePassword(accountId: string, request: ChangePasswordRequest): Promise<LoginSession> {
    const account = this.services.accounts.get(accountId);
    if (!account) throw new ApiError('invalid_api_key', 'Invalid or expired session token.');
    await this.auth.confirmPassword(account, request.current_password, { param: 'current_password' });
    const passwordHash = await hashPassword(request.new_password);
    // A new epoch revokes every session at once.
    const updated = await this.services.accounts.update(account.id, (record) => ({
      ...record,
      passwordHash,
      sessionEpoch: record.sessionEpoch + 1,
    }));
    if (!updated) throw new ApiError('invalid_api_key', 'Invalid or expired session token.');
    return this.openSession(updated.id, updated.sessionEpoch);
  }

  private async openSession(accountId: string, epoch: number): Promise<LoginSession> {
    const { token, record } = await this.services.sessions.create(accountId, epoch);
    return { token, expiresAt: record.expiresAt };
  }
}
