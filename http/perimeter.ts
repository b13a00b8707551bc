import { isApiTokenValue, type Authenticator, type TokenCaller } from '../actors/accounts/authenticator.js';
import { ApiError } from '../protocols/errors.js';
import { constantTimeEqual } from '../runtime/ids.js';
import type { Exchange } from './exchange.js';
import type { AuthMode, Principal } from './route.js';

const PUBLIC: Principal = { kind: 'token', account: null, token: null, sessionToken: null };

/** The client address of each exchange, noted when the request arrives (for per-address limits). */
const clientAddresses = new WeakMap<Exchange, string>();

/** The network address the request `ex` came from (`unknown` when the edge did not note one). */
export function clientAddressOf(ex: Exchange): string {
  return clientAddresses.get(ex) ?? 'unknown';
}

/** The secret of an `Authorization: Bearer …` header; 401 when missing or malformed. */
export function bearerSecret(header: string | undefined): string {
  if (!header)
    throw new ApiError(
      'missing_authorization',
      'Missing Authorization header: send "Authorization: Bearer <API token>".',
    );
  const match = /^Bearer[ \t]+([\x21-\x7e]{1,512})[ \t]*$/i.exec(header);
  if (!match) throw new ApiError('invalid_api_key', 'Malformed Authorization header: expected "Bearer <token>".');
  return match[1]!;
}

/**
 * The perimeter of /v1: reads the credential for a route's auth mode and hands it to the one
 * authentication path (`Authenticator`), which enforces token state, account status, the token's
 * requests per minute and the account tier's requests per minute. For API-token routes it also
 * admits the request under the tier's cap on requests in flight, so each request gets its own
 * perimeter ({@link forRequest}) whose {@link finish} lets the slot go when the answer (a whole
 * stream included) has ended. Balance is enforced where the hold is placed.
 */
export class Perimeter {
  private release: (() => void) | null = null;

  constructor(
    private readonly auth: Authenticator,
    private readonly adminKey: string | undefined,
    /** Only a request's own perimeter admits under the concurrency cap (it alone knows when the answer ends). */
    private readonly perRequest = false,
  ) {}

  /** The perimeter of one request from `clientAddress`; call {@link finish} once it is answered. */
  forRequest(ex: Exchange, clientAddress: string): Perimeter {
    clientAddresses.set(ex, clientAddress);
    return new Perimeter(this.auth, this.adminKey, true);
  }

  authenticate(mode: AuthMode, authorization: string | undefined): Principal {
    if (mode === 'public') return PUBLIC;
    const secret = bearerSecret(authorization);
    if (mode === 'admin') {
      if (!this.adminKey || !constantTimeEqual(secret, this.adminKey))
        throw new ApiError('invalid_api_key', 'Invalid admin key.');
      return { kind: 'admin', account: null, token: null, sessionToken: null };
    }
    if (isApiTokenValue(secret)) {
      if (mode === 'session')
        throw new ApiError(
          'session_required',
          'This route needs a session token from POST /v1/auth/login, not an API token.',
        );
      const caller = this.auth.apiToken(secret);
      if (mode === 'token' && this.perRequest) this.admit(caller);
      return { kind: 'token', account: caller.account, token: caller.token, sessionToken: null };
    }
    if (mode === 'token') throw new ApiError('invalid_api_key', 'Invalid API token.');
    const caller = this.auth.sessionToken(secret);
    return { kind: 'session', account: caller.account, token: null, sessionToken: caller.sessionToken };
  }

  /** Counts a request refused after authentication (for example 402) against its token. */
  countDenied(principal: Principal): void {
    if (principal.token) this.auth.countDenied(principal.token.id);
  }

  /** Ends this request's passage: its slot under the tier's concurrency cap is free again. */
  finish(): void {
    this.release?.();
    this.release = null;
  }

  private admit(caller: TokenCaller): void {
    try {
      this.release = this.auth.admit(caller.account, caller.limits);
    } catch (err) {
      this.auth.countDenied(caller.token.id);
      throw err;
    }
  }
}
