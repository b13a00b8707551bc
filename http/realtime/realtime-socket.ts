import type { TemplatedApp, WebSocket } from '@trufflesuite/uws-js-unofficial';
import { ApiError, errorBody } from '../../protocols/errors.js';
import { defaultSession } from '../../protocols/realtime.js';
import { MOVING_MODEL_ID } from '../../protocols/models.js';
import type { AccountServices } from '../../runtime/accounts/account-services.js';
import { API_TOKEN_PREFIX } from '../../runtime/accounts/token-repo.js';
import { CALL_MACHINE } from './call-runtime.js';
import { CallConnection, type CallDeps } from './call-connection.js';
import type { CallSocket } from './call-outbox.js';
import { newId } from '../../runtime/ids.js';
import type { TicketBook, TicketHolder } from './ticket-book.js';
import { statusLine } from '../uws-exchange.js';
import type { CallInput } from '../../actors/realtime-call-machine.js';

/** The realtime path: `GET /v1/realtime?ticket=…` with an Upgrade header. */
export const REALTIME_PATH = '/v1/realtime';

/** Largest client message: a 15 s audio append in base64 is about 1 MB. */
const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

interface SocketData {
  holder: TicketHolder;
  callId: string;
  connection: CallConnection | null;
  /** `?svc_timing=1`: audio deltas carry the server's send time (for load tests). */
  timing: boolean;
  /** Messages that arrived while the call's actor was being spawned. */
  early: string[];
  closed: boolean;
}

/** Everything the realtime socket needs. */
export interface RealtimeSocketDeps extends CallDeps {
  services: AccountServices;
  tickets: TicketBook;
  idleTimeoutS: number;
  newRequestId(): string;
}

/** The holder of `ticket`, re-checked now (token still enabled, account active, balance enough); throws ApiError. */
function admit(deps: RealtimeSocketDeps, ticket: string | null, authorization: string): TicketHolder {
  if (!ticket) throw new ApiError('invalid_ticket', 'Missing ticket: get one from POST /v1/realtime/ticket and connect with ?ticket=<ticket>.', { param: 'ticket' });
  const redeemed = deps.tickets.redeem(ticket);
  if ('refused' in redeemed) {
    const why = { unknown: 'is not valid', expired: 'has expired', used: 'was already used (tickets are single use)' }[redeemed.refused];
    throw new ApiError('invalid_ticket', `The ticket ${why}: get a new one from POST /v1/realtime/ticket.`, { param: 'ticket' });
  }
  // A ticket is bound to the token that asked for it: another token beside it is refused.
  const bearer = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
  if (bearer?.startsWith(API_TOKEN_PREFIX) && deps.services.tokens.findByValue(bearer)?.id !== redeemed.tokenId) {
    throw new ApiError('invalid_ticket', 'The ticket was issued to another API token.', { param: 'ticket' });
  }
  const token = deps.services.tokens.findOwned(redeemed.accountId, redeemed.tokenId);
  if (!token) throw new ApiError('invalid_ticket', 'The API token this ticket was issued to no longer exists.', { param: 'ticket' });
  if (!token.enabled) throw new ApiError('token_disabled', 'The API token this ticket was issued to is disabled.');
  const account = deps.services.accounts.get(redeemed.accountId);
  if (!account || account.status !== 'active') throw new ApiError('account_suspended', 'This account is suspended.');
  deps.calls.assertCanOpen(redeemed.accountId);
  return redeemed;
}

function socketOf(ws: WebSocket<SocketData>): CallSocket {
  return {
    send: (text) => {
      if (!ws.getUserData().closed) ws.cork(() => ws.send(text, false));
    },
    bufferedAmount: () => (ws.getUserData().closed ? 0 : ws.getBufferedAmount()),
    close: (code, reason) => {
      if (!ws.getUserData().closed) ws.end(code, reason);
    },
  };
}

/** Starts the call behind a freshly opened socket: hold, actor, `session.created`, then early messages. */
async function openCall(deps: RealtimeSocketDeps, ws: WebSocket<SocketData>): Promise<void> {
  const data = ws.getUserData();
  const socket = socketOf(ws);
  let holdMicros: number;
  try {
    holdMicros = deps.calls.open(data.callId, data.holder.accountId, data.holder.tokenId);
  } catch (err) {
    const message = err instanceof ApiError ? err.message : 'The call could not be opened.';
    socket.send(JSON.stringify({ type: 'error', error: { type: 'billing_error', code: 'insufficient_balance', message, param: null, event_id: null } }));
    socket.close(1008, 'insufficient balance');
    return;
  }
  const session = defaultSession(MOVING_MODEL_ID);
  const input: CallInput = { id: data.callId, accountId: data.holder.accountId, tokenId: data.holder.tokenId, session, holdMicros, endGraceMs: deps.limits.endGraceMs, at: deps.clock.now() };
  await deps.host.spawn(CALL_MACHINE, { id: data.callId, ownerId: data.holder.accountId, input });
  const connection = new CallConnection(deps, socket, { id: data.callId, accountId: data.holder.accountId, tokenId: data.holder.tokenId, session, holdMicros, timing: data.timing });
  if (data.closed) {
    connection.socketClosed();
    return;
  }
  data.connection = connection;
  await connection.start();
  for (const text of data.early.splice(0)) connection.message(text);
}

/**
 * Serves realtime calls on the app: the ticket is checked before the upgrade (a refusal is a
 * plain HTTP error in the API's envelope), `realtime` is echoed when offered as a subprotocol, and
 * each socket gets one call. uWS sends pings and closes idle sockets; our own limits decide about
 * slow readers (audio dropped, then the socket closed), so uWS's backpressure cap is set above them.
 */
export function serveRealtime(app: TemplatedApp, deps: RealtimeSocketDeps): { closeAll(): void } {
  const open = new Set<WebSocket<SocketData>>();
  app.ws<SocketData>(REALTIME_PATH, {
    maxPayloadLength: MAX_MESSAGE_BYTES,
    idleTimeout: deps.idleTimeoutS,
    sendPingsAutomatically: true,
    maxBackpressure: deps.limits.closeBytes * 2,
    upgrade: (res, req, context) => {
      const requestId = deps.newRequestId();
      const query = new URLSearchParams(req.getQuery() ?? '');
      const ticket = query.get('ticket');
      const key = req.getHeader('sec-websocket-key');
      const offered = req.getHeader('sec-websocket-protocol').split(',').map((p) => p.trim());
      const extensions = req.getHeader('sec-websocket-extensions');
      const authorization = req.getHeader('authorization');
      let holder: TicketHolder;
      try {
        holder = admit(deps, ticket, authorization);
      } catch (err) {
        const error = err instanceof ApiError ? err : new ApiError('internal_error', 'The server failed to check the ticket.');
        res.cork(() => {
          res.writeStatus(statusLine(error.status)).writeHeader('content-type', 'application/json').writeHeader('x-request-id', requestId);
          res.end(JSON.stringify(errorBody(error, requestId)), true);
        });
        return;
      }
      const data: SocketData = { holder, callId: newId('rtc'), connection: null, timing: query.get('svc_timing') === '1', early: [], closed: false };
      res.cork(() => res.upgrade(data, key, offered.includes('realtime') ? 'realtime' : '', extensions, context));
    },
    open: (ws) => {
      open.add(ws);
      openCall(deps, ws).catch((err: unknown) => {
        deps.logger.error('realtime call failed to open', { call_id: ws.getUserData().callId, err });
        socketOf(ws).close(1011, 'internal error');
      });
    },
    message: (ws, message, isBinary) => {
      const data = ws.getUserData();
      if (isBinary) {
        data.connection?.refuseBinary();
        return;
      }
      const text = Buffer.from(message).toString('utf8');
      if (data.connection) data.connection.message(text);
      else data.early.push(text);
    },
    close: (ws) => {
      open.delete(ws);
      const data = ws.getUserData();
      data.closed = true;
      data.connection?.socketClosed();
    },
  });
  return {
    // Going away (1001): each call closes as if its client had left, and is charged for its usage.
    closeAll: () => {
      for (const ws of [...open]) ws.end(1001, 'server shutting down');
    },
  };
}
