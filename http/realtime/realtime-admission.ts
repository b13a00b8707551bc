import { ApiError } from '../../protocols/errors.js';
import { MOVING_MODEL_ID, requireModel } from '../../protocols/models.js';
import { isApiTokenValue, type Authenticator } from '../../actors/accounts/authenticator.js';
import { bearerSecret } from '../perimeter.js';
import type { CallRuntime } from '../../actors/realtime/call-runtime.js';
import type { TicketHolder } from '../../actors/accounts/ticket-book.js';

/** Query parameters that would put a secret in the URL (and so in access logs): refused, never read. */
const SECRET_PARAMS = ['token', 'api_key', 'api-key', 'access_token', 'authorization'] as const;

/** Who may open a call, and on which model. */
export interface Admission {
  holder: TicketHolder;
  /** The call session's model: `pro-1` or a dated snapshot. */
  model: string;
}

/** What an upgrade request offers: its query string and its `Authorization` header ('' when absent). */
export interface UpgradeCredentials {
  query: URLSearchParams;
  authorization: string;
}

/** What admission reads: the one authentication path, and whether a call may start. */
export interface AdmissionDeps {
  auth: Authenticator;
  calls: Pick<CallRuntime, 'assertCanOpen'>;
}

/**
 * Decides a realtime upgrade before it happens. The credential is a ticket (`?ticket=`) or an API
 * token in `Authorization: Bearer` (the official SDK's way), checked by the same authentication
 * path as HTTP (token state, account status, requests per minute); `?model=` is `pro-1` (when
 * absent) or a dated snapshot; the balance must allow a call. A ticket is spent only after every
 * check passed, so a refused upgrade leaves it usable by its owner.
 */
export class RealtimeAdmission {
  constructor(private readonly deps: AdmissionDeps) {}

  /** The admission for an upgrade; throws the ApiError to answer instead (a plain HTTP refusal). */
  admit({ query, authorization }: UpgradeCredentials): Admission {
    const leaked = SECRET_PARAMS.find((name) => query.has(name));
    if (leaked) {
      throw new ApiError(
        'invalid_api_key',
        `Credentials are never accepted in the URL (?${leaked}=): send "Authorization: Bearer <API token>" on the upgrade, or connect with ?ticket=<ticket> from POST /v1/realtime/ticket.`,
        { param: leaked },
      );
    }
    // The SDK's sideband form (`?call_id=`) attaches to a running call: not served, and never a new call.
    if (query.has('call_id'))
      throw new ApiError(
        'invalid_request',
        'Attaching to a running call (?call_id=) is not supported: open a call with ?model=.',
        { param: 'call_id' },
      );
    const ticket = query.get('ticket');
    let tokenId: string | null = null;
    let holder: TicketHolder;
    if (ticket) {
      holder = this.deps.auth.ticketHolder(ticket, presentedBearer(authorization));
    } else {
      if (!authorization) {
        throw new ApiError(
          'missing_authorization',
          'Missing credentials: send "Authorization: Bearer <API token>" on the upgrade, or connect with ?ticket=<ticket> from POST /v1/realtime/ticket.',
        );
      }
      const secret = bearerSecret(authorization);
      if (!isApiTokenValue(secret)) throw new ApiError('invalid_api_key', 'Invalid API token.');
      const caller = this.deps.auth.apiToken(secret);
      tokenId = caller.token.id;
      holder = { accountId: caller.account.id, tokenId: caller.token.id };
    }
    const model = requireModel(query.get('model') ?? MOVING_MODEL_ID).id;
    try {
      this.deps.calls.assertCanOpen(holder.accountId);
    } catch (err) {
      // As on HTTP: a 402 after authentication counts as a denied request of the token.
      if (tokenId && err instanceof ApiError && err.status === 402) this.deps.auth.countDenied(tokenId);
      throw err;
    }
    if (ticket) this.deps.auth.spendTicket(ticket);
    return { holder, model };
  }
}

/** The bearer secret sent beside a ticket, if any (a ticket is bound to the token that asked for it). */
function presentedBearer(authorization: string): string | null {
  return /^Bearer\s+(\S+)$/i.exec(authorization)?.[1] ?? null;
}
