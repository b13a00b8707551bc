import { ApiError } from '../../protocols/errors.js';
import type { LoginRequest } from '../../protocols/account.js';
import { normaliseEmail, type AccountRecord } from './account-repo.js';
import type { AccountServices } from './account-services.js';
import { AttemptLimiter } from './attempt-limiter.js';
import { AuthGeneration } from './auth-generation.js';
import { CallerCache } from './caller-cache.js';
import { ConcurrencyGate } from './concurrency-gate.js';
import { verifyPassword } from './passwords.js';
import type { SecondFactor } from './second-factor.js';
import type { TicketBook, TicketHolder } from './ticket-book.js';
import { effectiveTier, type EffectiveTier, type TierLimits } from './tiers.js';
import { API_TOKEN_PREFIX, type TokenRecord } from './token-repo.js';

/** Failed logins (wrong e-mail or password) per client address per 15 minutes before 429. */
const LOGIN_FAILURES_PER_WINDOW = 30;
const LOGIN_WINDOW_MS = 15 * 60_000;
/** Failed logins for one e-mail address in the same window, from any number of client addresses (credential stuffing spread over many). */
const LOGIN_FAILURES_PER_ACCOUNT = 10;

/** A caller proven by an API token: its account and token. */
export interface TokenCaller {
  /** As authentication read it (frozen, shared): its balance may be older than the ledger's. */
  account: AccountRecord;
  token: TokenRecord;
  /** The account's tier caps now (null: none), worked out once for the request. */
  limits: TierLimits | null;
}

/** A caller proven by a login session token. */
export interface SessionCaller {
  account: AccountRecord;
  sessionToken: string;
}

/** What a bearer credential proved: an API token or a login session. */
export type BearerCaller = ({ kind: 'token' } & TokenCaller) | ({ kind: 'session' } & SessionCaller);

/** Whether a secret has the shape of an API token (as opposed to a login session token). */
export function isApiTokenValue(secret: string): boolean {
  return secret.startsWith(API_TOKEN_PREFIX);
}

/**
 * The one authentication path, for every way in: HTTP routes (through the perimeter), the
 * realtime upgrade and the pages that read a browser session. It checks an API token (exists,
 * enabled, account active, within its requests per minute, counted in the key's usage), a login
 * session token (unexpired, not revoked by a password change, account active) or a realtime
 * ticket (checked without spending it, then spent once every other check passed).
 */
export class Authenticator {
  private readonly gate = new ConcurrencyGate();
  private readonly failuresPerClient: AttemptLimiter;
  private readonly failuresPerEmail: AttemptLimiter;
  private readonly callers: CallerCache;

  constructor(
    private readonly services: AccountServices,
    private readonly tickets: TicketBook,
    /** The second factor of accounts that turned it on; without it, logins are password only. */
    private readonly secondFactor: SecondFactor | null = null,
  ) {
    this.failuresPerClient = new AttemptLimiter(services.clock, {
      limit: LOGIN_FAILURES_PER_WINDOW,
      windowMs: LOGIN_WINDOW_MS,
    });
    this.failuresPerEmail = new AttemptLimiter(services.clock, {
      limit: LOGIN_FAILURES_PER_ACCOUNT,
      windowMs: LOGIN_WINDOW_MS,
    });
    this.callers = new CallerCache(new AuthGeneration(services.store), services.tokens, services.accounts);
  }

  /**
   * Checks a login: e-mail and password (401 `invalid_credentials` for either, after the same
   * scrypt work), account status, then, with two-factor on, the second factor: none sent is 401
   * `second_factor_required`; a wrong, expired or replayed one is 401 `invalid_second_factor`.
   * Failures are limited per client address and per e-mail address (429), the same way whether
   * or not the address has an account; the per-address limit throttles (its bucket refills) rather
   * than locks out, so nobody can keep an owner out for long by failing on purpose. Each attempt
   * is counted before its password is checked, so attempts sent at once cannot pass either limit.
   */
  async passwordLogin(request: LoginRequest, client: string): Promise<AccountRecord> {
    const known = this.services.accounts.findByEmail(request.email);
    const account = await this.checkPassword(normaliseEmail(request.email), known, request.password, client);
    if (!account) throw new ApiError('invalid_credentials', 'Invalid e-mail or password.');
    if (account.status !== 'active') throw new ApiError('account_suspended', 'This account is suspended.');
    if (this.secondFactor?.isEnabled(account.id)) {
      if (request.totp_code === undefined && request.recovery_code === undefined) {
        throw new ApiError(
          'second_factor_required',
          'Two-factor authentication is on: send the same login again with totp_code (the 6-digit code from the app) or recovery_code.',
          { param: 'totp_code' },
        );
      }
      await this.secondFactor.verify(
        account.id,
        {
          totpCode: request.totp_code,
          recoveryCode: request.totp_code === undefined ? request.recovery_code : undefined,
        },
        'invalid_second_factor',
      );
    }
    return this.services.accounts.get(account.id) ?? account;
  }

  /**
   * Confirms the password of a signed-in account holder (changing the password, turning two-factor
   * off) under the login's per-e-mail limit: 401 `invalid_credentials` on `param` when wrong, 429
   * past the limit, which wrong logins and wrong confirmations fill together.
   */
  async confirmPassword(account: AccountRecord, password: string, options: { param: string }): Promise<void> {
    if (!(await this.checkPassword(normaliseEmail(account.email), account, password, null))) {
      throw new ApiError('invalid_credentials', 'The password is wrong.', { param: options.param });
    }
  }

  /**
   * The one password check: reserves an attempt per e-mail (and per client address for a login)
   * before scrypt runs and gives it back when the password is right, so attempts sent at once
   * cannot pass the limits. Null when the account is unknown or the password wrong (counted).
   */
  private async checkPassword(
    emailKey: string,
    account: AccountRecord | undefined,
    password: string,
    client: string | null,
  ): Promise<AccountRecord | null> {
    const refund = this.reservePasswordAttempt(emailKey, client);
    // verifyPassword does the same work for an unknown e-mail, so timing says nothing either.
    const ok = await verifyPassword(password, account?.passwordHash ?? null);
    if (!account || !ok) return null;
    refund();
    return account;
  }

  /** Reserves one password attempt from each limit that applies, or none (429); returns the refund. */
  private reservePasswordAttempt(emailKey: string, client: string | null): () => void {
    const clientWaitMs = client === null ? 0 : this.failuresPerClient.reserve(client);
    if (clientWaitMs > 0)
      throw tooManyFailures('Too many failed logins from this address; try again later.', clientWaitMs);
    const emailWaitMs = this.failuresPerEmail.reserve(emailKey);
    if (emailWaitMs > 0) {
      if (client !== null) this.failuresPerClient.refund(client);
      throw tooManyFailures('Too many wrong passwords for this e-mail address; try again later.', emailWaitMs);
    }
    return () => {
      this.failuresPerEmail.refund(emailKey);
      if (client !== null) this.failuresPerClient.refund(client);
    };
  }

  /** API requests of `accountId` in flight now (what the concurrency cap counts). */
  inFlight(accountId: string): number {
    return this.gate.count(accountId);
  }

  /** The account's tier now: its caps, where it comes from. */
  tierOf(account: AccountRecord): EffectiveTier {
    return effectiveTier(account, this.services.clock.now());
  }

  /**
   * Admits one API request of `account` under its tier's cap on requests in flight (429
   * `concurrency_limit_exceeded`); returns the release to call when the answer has ended.
   */
  admit(account: AccountRecord, limits: TierLimits | null = this.tierOf(account).limits): () => void {
    if (!limits) return NOOP;
    if (!this.gate.tryAcquire(account.id, limits.maxConcurrentRequests)) {
      throw new ApiError(
        'concurrency_limit_exceeded',
        `This account's tier allows ${limits.maxConcurrentRequests} API requests in flight at once; wait for one to finish (GET /v1/account/tier).`,
        { retryAfterMs: 1_000 },
      );
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.gate.release(account.id);
    };
  }

  /** The account a bearer secret (API token or login session) belongs to, without counting or limiting anything; null when unknown. */
  accountOf(secret: string): string | null {
    if (isApiTokenValue(secret)) return this.callers.find(secret)?.token.accountId ?? null;
    return this.services.sessions.find(secret)?.accountId ?? null;
  }

  /** The caller of an API token; throws 401/403/429 in the envelope. Counts the request (and a refusal) against the token. */
  apiToken(secret: string): TokenCaller {
    const found = this.callers.find(secret);
    if (!found) throw new ApiError('invalid_api_key', 'Invalid API token.');
    const { token, account } = found;
    const usage = this.services.keyUsage;
    usage.countRequest(token.id);
    if (!token.enabled) {
      usage.countDenied(token.id);
      throw new ApiError('token_disabled', 'This API token is disabled.');
    }
    if (!account) throw new ApiError('invalid_api_key', 'Invalid API token.');
    if (account.status !== 'active') {
      usage.countDenied(token.id);
      throw new ApiError('account_suspended', 'This account is suspended.');
    }
    const waitMs = this.services.rateLimiter.take(token.id, token.requestsPerMinute);
    if (waitMs > 0) {
      usage.countDenied(token.id);
      throw new ApiError(
        'rate_limit_exceeded',
        `Rate limit of ${token.requestsPerMinute} requests per minute exceeded for this token.`,
        {
          retryAfterMs: waitMs,
        },
      );
    }
    // The tier's cap covers the whole account, every token together.
    const limits = this.tierOf(account).limits;
    const tierWaitMs = limits ? this.services.rateLimiter.take(`account:${account.id}`, limits.requestsPerMinute) : 0;
    if (tierWaitMs > 0) {
      usage.countDenied(token.id);
      throw new ApiError(
        'rate_limit_exceeded',
        `This account's tier allows ${limits!.requestsPerMinute} requests per minute (all tokens together); see GET /v1/account/tier.`,
        {
          retryAfterMs: tierWaitMs,
        },
      );
    }
    return { account, token, limits };
  }

  /** The caller of a login session token; throws 401/403. */
  sessionToken(secret: string): SessionCaller {
    const session = this.services.sessions.find(secret);
    const account = session && this.services.accounts.get(session.accountId);
    if (!session || !account || account.sessionEpoch !== session.epoch) {
      throw new ApiError('invalid_api_key', 'Invalid or expired session token.');
    }
    if (account.status !== 'active') throw new ApiError('account_suspended', 'This account is suspended.');
    return { account, sessionToken: secret };
  }

  /** Either kind of bearer, told apart by the API token prefix. */
  bearer(secret: string): BearerCaller {
    return isApiTokenValue(secret)
      ? { kind: 'token', ...this.apiToken(secret) }
      : { kind: 'session', ...this.sessionToken(secret) };
  }

  /** Counts a request refused after authentication (402) against its token. */
  countDenied(tokenId: string): void {
    this.services.keyUsage.countDenied(tokenId);
  }

  /**
   * The holder of an unspent realtime ticket, re-checked now (its token still there and enabled,
   * its account active); `presentedToken`, an API token sent beside it, must be the one it was
   * issued to. The ticket is not spent: call {@link spendTicket} once every other check passed.
   */
  ticketHolder(ticket: string, presentedToken: string | null): TicketHolder {
    const holder = this.tickets.peek(ticket);
    if ('refused' in holder) throw refusedTicket(holder.refused);
    if (
      presentedToken !== null &&
      isApiTokenValue(presentedToken) &&
      this.services.tokens.findByValue(presentedToken)?.id !== holder.tokenId
    ) {
      throw new ApiError('invalid_ticket', 'The ticket was issued to another API token.', { param: 'ticket' });
    }
    const token = this.services.tokens.findOwned(holder.accountId, holder.tokenId);
    if (!token)
      throw new ApiError('invalid_ticket', 'The API token this ticket was issued to no longer exists.', {
        param: 'ticket',
      });
    if (!token.enabled) throw new ApiError('token_disabled', 'The API token this ticket was issued to is disabled.');
    const account = this.services.accounts.get(holder.accountId);
    if (!account || account.status !== 'active') throw new ApiError('account_suspended', 'This account is suspended.');
    return holder;
  }

  /** Spends a ticket checked by {@link ticketHolder}. */
  spendTicket(ticket: string): void {
    const spent = this.tickets.redeem(ticket);
    if ('refused' in spent) throw refusedTicket(spent.refused);
  }
}

const NOOP = () => {};

function tooManyFailures(message: string, waitMs: number): ApiError {
  return new ApiError('rate_limit_exceeded', message, { retryAfterMs: waitMs });
}

const REFUSED_TICKET = {
  unknown: 'is not valid',
  expired: 'has expired',
  used: 'was already used (tickets are single use)',
} as const;

function refusedTicket(why: keyof typeof REFUSED_TICKET): ApiError {
  return new ApiError(
    'invalid_ticket',
    `The ticket ${REFUSED_TICKET[why]}: get a new one from POST /v1/realtime/ticket.`,
    { param: 'ticket' },
  );
}
