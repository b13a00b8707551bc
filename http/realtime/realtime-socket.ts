import type { TemplatedApp, WebSocket } from '@trufflesuite/uws-js-unofficial';
import type { Authenticator } from '../../actors/accounts/authenticator.js';
import type { TicketHolder } from '../../actors/accounts/ticket-book.js';
import type { CallRuntime } from '../../actors/realtime/call-runtime.js';
import { ApiError, errorBody } from '../../protocols/errors.js';
import type { Logger } from '../../runtime/logger.js';
import { statusLine } from '../uws-exchange.js';
import { CallConnection } from './call-connection.js';
import { CorkedSends } from './corked-sends.js';
import type { CallSocket } from './call-outbox.js';
import { RealtimeAdmission, type Admission } from './realtime-admission.js';
import type { RealtimeRelay, RelayedCall } from './realtime-relay.js';
import { FORWARDED_BY } from '../cluster-forward.js';

/** The realtime path: `GET /v1/realtime?ticket=…` (or `?model=…` with `Authorization: Bearer`) with an Upgrade header. */
export const REALTIME_PATH = '/v1/realtime';

/** Largest client message: a 15 s audio append in base64 is about 1 MB. */
const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

interface SocketData {
  /** Cluster mode: the call lives on another node, which accepted it; this socket is relayed there. */
  relayed: RelayedCall | null;
  holder: TicketHolder;
  /** The model the upgrade asked for (validated): the session starts on it. */
  model: string;
  /** `?svc_timing=1`: audio deltas carry the server's send time (for load tests). */
  timing: boolean;
  connection: CallConnection | null;
  closed: boolean;
  /** Texts waiting for the end of the task (see CorkedSends). */
  outgoing: (string | Uint8Array)[];
  outgoingChars: number;
}

/** Everything the realtime socket needs. */
export interface RealtimeSocketDeps {
  calls: Pick<CallRuntime, 'open' | 'assertCanOpen'>;
  auth: Authenticator;
  logger: Logger;
  idleTimeoutS: number;
  limits: { dropAudioBytes: number; closeBytes: number };
  newRequestId(): string;
  /** Cluster mode: relays a socket whose account lives on another node. */
  relay?: RealtimeRelay;
  /** One node: true while it drains (new calls are refused; a cluster node stops listening instead). */
  draining?: () => boolean;
}

/** A call's socket: its messages of one task written together (CorkedSends). */
function socketOf(ws: WebSocket<SocketData>, sends: CorkedSends<SocketData>): CallSocket {
  const data = ws.getUserData();
  return {
    send: (text) => sends.send(ws, text, data),
    bufferedAmount: () => sends.bufferedAmount(ws, data),
    close: (code, reason) => {
      sends.flush(ws);
      if (!ws.getUserData().closed) ws.end(code, reason);
    },
    // CorkedSends writes a task's messages in a microtask, and uWS copies what it cannot write at once.
    borrowsBytes: true,
  };
}

/**
 * Serves realtime calls on the app: the credential (ticket or bearer API token) and the model are
 * checked before the upgrade (a refusal is a plain HTTP error in the API's envelope), `realtime` is echoed when offered as a subprotocol, and
 * each socket gets one call. uWS sends pings and closes idle sockets; our own limits decide about
 * slow readers (audio dropped, then the socket closed), so uWS's backpressure cap is set above them.
 */
export function serveRealtime(app: TemplatedApp, deps: RealtimeSocketDeps): { closeAll(code?: 1001 | 1012): void } {
  const open = new Set<WebSocket<SocketData>>();
  const admission = new RealtimeAdmission(deps);
  const sends = new CorkedSends<SocketData>();
  app.ws<SocketData>(REALTIME_PATH, {
    maxPayloadLength: MAX_MESSAGE_BYTES,
    idleTimeout: deps.idleTimeoutS,
    sendPingsAutomatically: true,
    maxBackpressure: deps.limits.closeBytes * 2,
    upgrade: (res, req, context) => {
      const requestId = deps.newRequestId();
      const query = new URLSearchParams(req.getQuery() ?? '');
      const key = req.getHeader('sec-websocket-key');
      const offered = req
        .getHeader('sec-websocket-protocol')
        .split(',')
        .map((p) => p.trim());
      const protocol = offered.includes('realtime') ? 'realtime' : '';
      const extensions = req.getHeader('sec-websocket-extensions');
      const authorization = req.getHeader('authorization');
      const forwarded = req.getHeader(FORWARDED_BY) !== '';
      const refuse = (err: unknown) => {
        if (!(err instanceof ApiError))
          deps.logger.error('realtime upgrade check failed', { request_id: requestId, err });
        const error =
          err instanceof ApiError ? err : new ApiError('internal_error', 'The server failed to check the credentials.');
        res.cork(() => {
          res
            .writeStatus(statusLine(error.status))
            .writeHeader('content-type', 'application/json')
            .writeHeader('x-request-id', requestId);
          for (const [name, value] of Object.entries(error.headers)) res.writeHeader(name, value);
          res.end(JSON.stringify(errorBody(error, requestId)), true);
        });
      };
      if (deps.draining?.()) {
        refuse(
          new ApiError('server_draining', 'This server is shutting down; retry the call.', { retryAfterMs: 1000 }),
        );
        return;
      }
      const admitHere = () => {
        let admitted: Admission;
        try {
          admitted = admission.admit({ query, authorization });
        } catch (err) {
          refuse(err);
          return;
        }
        const data: SocketData = {
          relayed: null,
          holder: admitted.holder,
          model: admitted.model,
          timing: query.get('svc_timing') === '1',
          connection: null,
          closed: false,
          outgoing: [],
          outgoingChars: 0,
        };
        res.cork(() => res.upgrade(data, key, protocol, extensions, context));
      };
      const relay = deps.relay;
      if (!relay) return admitHere();
      let aborted = false;
      res.onAborted(() => (aborted = true));
      void (async () => {
        const url = await relay.target(query, authorization, forwarded);
        if (aborted) return;
        if (!url) return admitHere();
        const outcome = await relay.connect(url, query, authorization, protocol, requestId);
        if (aborted) {
          if ('attach' in outcome) outcome.clientClosed();
          return;
        }
        if (!('attach' in outcome)) {
          // The home refused the call: the client gets its answer as it is.
          res.cork(() => {
            res.writeStatus(statusLine(outcome.status));
            for (const [name, value] of Object.entries(outcome.headers)) res.writeHeader(name, value);
            res.end(outcome.body, true);
          });
          return;
        }
        const data: SocketData = {
          relayed: outcome,
          holder: { accountId: '', tokenId: '' },
          model: '',
          timing: false,
          connection: null,
          closed: false,
          outgoing: [],
          outgoingChars: 0,
        };
        res.cork(() => res.upgrade(data, key, protocol, extensions, context));
      })().catch((err: unknown) => {
        if (!aborted) refuse(err);
      });
    },
    open: (ws) => {
      open.add(ws);
      const data = ws.getUserData();
      if (data.relayed) {
        data.relayed.attach({
          send: (payload, binary) => {
            if (!data.closed) ws.cork(() => ws.send(payload, binary));
          },
          close: (code, reason) => {
            if (!data.closed) ws.end(code, reason);
          },
        });
        return;
      }
      const connection = new CallConnection(socketOf(ws, sends), {
        calls: deps.calls,
        logger: deps.logger,
        limits: deps.limits,
        timing: data.timing,
      });
      data.connection = connection;
      connection.open(data.holder, data.model).catch((err: unknown) => {
        deps.logger.error('realtime call failed to open', { account_id: data.holder.accountId, err });
        socketOf(ws, sends).close(1011, 'internal error');
      });
    },
    message: (ws, message, isBinary) => {
      const { relayed, connection } = ws.getUserData();
      if (relayed) return relayed.fromClient(Buffer.from(message), isBinary);
      if (isBinary) connection?.refuseBinary();
      else connection?.messageBytes(Buffer.from(message));
    },
    close: (ws) => {
      open.delete(ws);
      const data = ws.getUserData();
      data.closed = true;
      data.relayed?.clientClosed();
      data.connection?.socketClosed();
    },
  });
  return {
    // Going away (1001): each call closes as if its client had left, and is charged for its usage.
    // 1012 (service restart) when a cluster node drains: reconnect, another node serves the account.
    closeAll: (code = 1001) => {
      for (const ws of [...open]) {
        sends.flush(ws);
        ws.end(code, code === 1012 ? 'node draining: reconnect' : 'server shutting down');
      }
    },
  };
}
