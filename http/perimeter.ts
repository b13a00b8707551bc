import { ApiError } from '../protocols/errors.js';
import type { AccountServices } from '../runtime/accounts/account-services.js';
import { API_TOKEN_PREFIX } from '../runtime/accounts/token-repo.js';
import { constantTimeEqual } from '../runtime/ids.js';
import type { AuthMode, Principal } from './route.js';

const PUBLIC: Principal = { kind: 'token', account: null, token: null, sessionToken: null };

function bearer(header: string | undefined): string {
  if (!header) throw new ApiError('missing_authorization', 'Missing Authorization header: send "Authorization: Bearer <API token>".');
  const match = /^Bearer[ \t]+([\x21-\x7e]{1,512})[ \t]*$/i.exec(header);
  if (!match) throw new ApiError('invalid_api_key', 'Malformed Authorization header: expected "Bearer <token>".');
  return match[1]!;
}

/**
 * The perimeter of /v1: resolves the caller for a route's auth mode and enforces token state,
 * account status and the token's requests-per-minute. Every request by a known token counts as a
 * request, and a refused one also as denied. Balance is enforced where the hold is placed.
 */
export class Perimeter {
  constructor(private readonly services: AccountServices, private readonly adminKey: string | undefined) {}

  authenticate(mode: AuthMode, authorization: string | undefined): Principal {
    if (mode === 'public') return PUBLIC;
    const secret = bearer(authorization);
    if (mode === 'admin') {
      if (!this.adminKey || !constantTimeEqual(secret, this.adminKey)) throw new ApiError('invalid_api_key', 'Invalid admin key.');
      return { kind: 'admin', account: null, token: null, sessionToken: null };
    }
    if (secret.startsWith(API_TOKEN_PREFIX)) {
      if (mode === 'session') throw new ApiError('session_required', 'This route needs a session token from POST /v1/auth/login, not an API token.');
      return this.viaToken(secret);
    }
    if (mode === 'token') throw new ApiError('invalid_api_key', 'Invalid API token.');
    return this.viaSession(secret);
  }

  private viaToken(secret: string): Principal {
    const token = this.services.tokens.findByValue(secret);
    if (!token) throw new ApiError('invalid_api_key', 'Invalid API token.');
    const usage = this.services.keyUsage;
    usage.countRequest(token.id);
    if (!token.enabled) {
      usage.countDenied(token.id);
      throw new ApiError('token_disabled', 'This API token is disabled.');
    }
    const account = this.services.accounts.get(token.accountId);
    if (!account) throw new ApiError('invalid_api_key', 'Invalid API token.');
    if (account.status !== 'active') {
      usage.countDenied(token.id);
      throw new ApiError('account_suspended', 'This account is suspended.');
    }
    const waitMs = this.services.rateLimiter.take(token.id, token.requestsPerMinute);
    if (waitMs > 0) {
      usage.countDenied(token.id);
      throw new ApiError('rate_limit_exceeded', `Rate limit of ${token.requestsPerMinute} requests per minute exceeded for this token.`, {
        headers: { 'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))) },
      });
    }
    return { kind: 'token', account, token, sessionToken: null };
  }

  private viaSession(secret: string): Principal {
    const session = this.services.sessions.find(secret);
    const account = session && this.services.accounts.get(session.accountId);
    if (!session || !account || account.sessionEpoch !== session.epoch) {
      throw new ApiError('invalid_api_key', 'Invalid or expired session token.');
    }
    if (account.status !== 'active') throw new ApiError('account_suspended', 'This account is suspended.');
    return { kind: 'session', account, token: null, sessionToken: secret };
  }

  /** Counts a request refused after authentication (for example 402) against its token. */
  countDenied(principal: Principal): void {
    if (principal.token) this.services.keyUsage.countDenied(principal.token.id);
  }
}
