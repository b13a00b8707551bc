import WebSocket from 'ws';
import { isApiTokenValue, type Authenticator } from '../../actors/accounts/authenticator.js';
import { TicketBook } from '../../actors/accounts/ticket-book.js';
import { ApiError } from '../../protocols/errors.js';
import type { ClusterNode } from '../../runtime/cluster/cluster-node.js';
import type { Logger } from '../../runtime/logger.js';
import { FORWARDED_BY } from '../cluster-forward.js';

/** What a relayed socket does with the client's side: send a frame, close it. */
export interface RelayClient {
  send(data: string | Buffer, binary: boolean): void;
  close(code: number, reason: string): void;
}

/** The home's answer to a relayed upgrade it refused: passed to the client as it is. */
export interface RelayRefusal {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A call whose home accepted the socket: attach the client's side once it is open. */
export interface RelayedCall {
  attach(client: RelayClient): void;
  fromClient(data: string | Buffer, binary: boolean): void;
  clientClosed(): void;
}

/** Close codes a client may be sent as they are; anything else from the home becomes 1011. */
const PASSED_CODES = new Set([1000, 1001, 1008, 1011, 1012, 1013]);
/** Answer headers of a refusal worth passing on. */
const REFUSAL_HEADERS = ['content-type', 'retry-after', 'x-request-id'];

/**
 * Cluster mode's realtime edge: a call belongs on its account's home node (where its money is held
 * and its ticket was issued), so a socket that reaches another node is relayed there frame by
 * frame over a WebSocket between the nodes. The client's socket stays where it is. The home's
 * handshake happens first, so a refusal (a spent ticket, a balance too low) reaches the client as
 * the same HTTP error it would get from the home itself.
 */
export class RealtimeRelay {
  constructor(
    private readonly node: ClusterNode,
    private readonly auth: Authenticator,
    private readonly logger: Logger,
  ) {}

  /** The URL of the node to relay an upgrade to, or null to serve it here. */
  async target(query: URLSearchParams, authorization: string, forwarded: boolean): Promise<string | null> {
    if (forwarded) return null;
    const ticket = query.get('ticket');
    let home: string | null;
    if (ticket) {
      home = TicketBook.nodeOf(ticket);
    } else {
      const secret = /^Bearer[ \t]+(\S{1,512})[ \t]*$/i.exec(authorization)?.[1];
      if (!secret || !isApiTokenValue(secret)) return null;
      let accountId = this.auth.accountOf(secret);
      if (!accountId) {
        await this.node.store.sync();
        accountId = this.auth.accountOf(secret);
      }
      home = accountId ? await this.node.homeOf(accountId) : null;
    }
    if (!home || home === this.node.id) return null;
    return this.node.nodes.get(home)?.url ?? null;
  }

  /** Opens the home's side: resolves with the call once the home accepted, or with its refusal. */
  connect(
    url: string,
    query: URLSearchParams,
    authorization: string,
    protocol: string,
    requestId: string,
  ): Promise<RelayedCall | RelayRefusal> {
    const headers: Record<string, string> = { [FORWARDED_BY]: this.node.id, 'x-request-id': requestId };
    if (authorization) headers.authorization = authorization;
    const upstream = new WebSocket(
      `${url.replace(/^http/, 'ws')}/v1/realtime?${query.toString()}`,
      protocol ? [protocol] : [],
      { headers, perMessageDeflate: false },
    );
    // Frames the home sends before the client's socket is open wait here.
    const early: [Buffer | string, boolean][] = [];
    let client: RelayClient | null = null;
    let clientGone = false;
    upstream.on('message', (data: Buffer, binary: boolean) => {
      const payload = binary ? data : data.toString('utf8');
      if (client) client.send(payload, binary);
      else early.push([payload, binary]);
    });
    return new Promise((resolve, reject) => {
      upstream.once('open', () => {
        upstream.on('close', (code: number, reason: Buffer) => {
          if (!clientGone)
            client?.close(
              PASSED_CODES.has(code) ? code : 1011,
              reason.toString('utf8') || 'the call ended on its node',
            );
          clientGone = true;
        });
        resolve({
          attach: (side) => {
            client = side;
            for (const [payload, binary] of early.splice(0)) side.send(payload, binary);
            if (upstream.readyState !== WebSocket.OPEN && !clientGone) {
              clientGone = true;
              side.close(1011, 'the call ended on its node');
            }
          },
          fromClient: (data, binary) => {
            if (upstream.readyState === WebSocket.OPEN) upstream.send(binary ? data : data.toString(), { binary });
          },
          clientClosed: () => {
            clientGone = true;
            if (upstream.readyState === WebSocket.OPEN || upstream.readyState === WebSocket.CONNECTING)
              upstream.close(1000, 'client left');
          },
        });
      });
      upstream.once('unexpected-response', (_request, response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => {
          const passed: Record<string, string> = {};
          for (const name of REFUSAL_HEADERS) {
            const value = response.headers[name];
            if (typeof value === 'string') passed[name] = value;
          }
          resolve({ status: response.statusCode ?? 502, headers: passed, body });
        });
        response.on('error', reject);
      });
      upstream.on('error', (err) => {
        this.logger.warn('realtime relay: the home node could not be reached', { url, err });
        reject(
          new ApiError('cluster_unavailable', 'The node serving this account cannot be reached; retry.', {
            retryAfterMs: 1000,
          }),
        );
      });
    });
  }
}
