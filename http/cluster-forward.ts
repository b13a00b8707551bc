import { PassThrough } from 'node:stream';
import type { HttpRequest } from '@trufflesuite/uws-js-unofficial';
import { Pool } from 'undici';
import type { Authenticator } from '../actors/accounts/authenticator.js';
import { ApiError } from '../protocols/errors.js';
import type { ClusterNode } from '../runtime/cluster/cluster-node.js';
import type { Logger } from '../runtime/logger.js';
import { dispatch, sendError } from './dispatch.js';
import type { Exchange } from './exchange.js';

/** Request headers that belong to one connection, not to the request. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'proxy-authorization',
  'proxy-connection',
  'host',
]);
/** Answer headers the exchange writes itself. */
const OWN_ANSWER_HEADERS = new Set([...HOP_BY_HOP, 'content-length', 'date', 'x-request-id', 'uwebsockets']);
/** Names the node a forwarded request came from (a node never forwards a forwarded request). */
export const FORWARDED_BY = 'x-svc-forwarded-by';

/** The home could not be reached before answering (refused, reset, unknown URL): try again once the home moves. */
class Unreachable extends Error {}

/** Bodies up to this size are buffered before forwarding (chat requests); larger ones stream through once. */
const SMALL_BODY_BYTES = 1024 * 1024;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Cluster mode's edge: a request of an account whose home is another node is forwarded there over
 * HTTP and answered as if local (status, headers and a streamed body, SSE included), so the
 * account's actors, holds and limits are all on one node. While a dead home's lease runs out the
 * request waits (up to three leases) and then goes to the node that took the account over.
 */
export class ClusterForwarder {
  private readonly pools = new Map<string, Pool>();

  constructor(
    private readonly node: ClusterNode,
    private readonly auth: Authenticator,
    private readonly options: { logger: Logger; maxBodyBytes: number; leaseMs: number; adminKey: string | undefined },
  ) {}

  /** Forwards `ex` when its account lives on another node; false when this node must serve it. */
  async handle(ex: Exchange): Promise<boolean> {
    const secret = /^Bearer[ \t]+([\x21-\x7e]{1,512})[ \t]*$/i.exec(ex.headers.authorization ?? '')?.[1];
    if (!secret || secret === this.options.adminKey) return false;
    let accountId = this.auth.accountOf(secret);
    if (!accountId) {
      // Created on another node a moment ago? Catch up with the log once before calling it unknown.
      await this.node.store.sync();
      accountId = this.auth.accountOf(secret);
    }
    if (!accountId) return false;
    const deadline = performance.now() + 3 * this.options.leaseMs;
    let body: PassThrough | Buffer | undefined | null = null;
    for (;;) {
      let home = await this.node.homeOf(accountId);
      if (home === null)
        throw new ApiError(
          'cluster_unavailable',
          'This node is shutting down; retry (another node will serve the account).',
          { retryAfterMs: 1000 },
        );
      if (home === this.node.id) return false;
      if (ex.headers[FORWARDED_BY] !== undefined) {
        await this.node.store.sync();
        home = await this.node.homeOf(accountId);
        if (home === this.node.id) return false;
        throw new ApiError('cluster_unavailable', 'The account is moving between nodes; retry.', {
          retryAfterMs: 1000,
        });
      }
      const url = this.node.nodes.get(home ?? '')?.url;
      try {
        if (!url) throw new Unreachable(`node ${home} has no URL`);
        if (body === null) body = await this.requestBody(ex);
        await this.forward(ex, url, body);
        return true;
      } catch (err) {
        if (!(err instanceof Unreachable)) throw err;
        if (performance.now() > deadline || ex.signal.aborted) {
          throw new ApiError(
            'cluster_unavailable',
            `The node serving this account (${home}) cannot be reached and has not been taken over yet; retry.`,
            { retryAfterMs: 1000 },
          );
        }
        await sleep(200);
      }
    }
  }

  /** The request body to send on: whole when small (so it can be sent again), else a stream read once. */
  private async requestBody(ex: Exchange): Promise<PassThrough | Buffer | undefined> {
    const hasBody =
      ex.method !== 'GET' &&
      ex.method !== 'HEAD' &&
      (Number(ex.headers['content-length'] ?? 0) > 0 || ex.headers['transfer-encoding'] !== undefined);
    const length = Number(ex.headers['content-length'] ?? -1);
    // A small body is read whole, so the request can be sent again if the home turns out to be gone.
    if (!hasBody) return undefined;
    if (length >= 0 && length <= SMALL_BODY_BYTES) return ex.readBody(SMALL_BODY_BYTES);
    const sink = new PassThrough();
    // Body bytes are read only once: a retry after they started flowing could not resend them.
    void ex
      .pipeBody(
        (chunk) =>
          sink.write(chunk) ? undefined : new Promise<void>((resolve) => sink.once('drain', () => resolve())),
        this.options.maxBodyBytes,
      )
      .then(
        () => sink.end(),
        (err: unknown) => sink.destroy(err instanceof Error ? err : new Error(String(err))),
      );
    return sink;
  }

  private pool(url: string): Pool {
    let pool = this.pools.get(url);
    if (!pool)
      this.pools.set(url, (pool = new Pool(url, { connections: 64, pipelining: 1, keepAliveTimeout: 30_000 })));
    return pool;
  }

  private async forward(ex: Exchange, url: string, body: PassThrough | Buffer | undefined): Promise<void> {
    const headers: Record<string, string> = {};
    for (const name in ex.headers) if (!HOP_BY_HOP.has(name)) headers[name] = ex.headers[name]!;
    headers[FORWARDED_BY] = this.node.id;
    // The home answers (and bills) under the request id the client sees.
    headers['x-request-id'] = ex.requestId;
    const path = ex.query.size > 0 ? `${ex.path}?${ex.query.toString()}` : ex.path;
    let answer;
    try {
      answer = await this.pool(url).request({ path, method: ex.method, headers, body, signal: ex.signal });
    } catch (err) {
      if (ex.signal.aborted) return;
      const code = (err as { code?: string }).code ?? '';
      // Never reached the home: safe to send again. A reset after sending is only retried for reads.
      const unsent =
        /ECONNREFUSED|EHOSTUNREACH|UND_ERR_CONNECT_TIMEOUT/.test(code) ||
        ((ex.method === 'GET' || ex.method === 'HEAD') && /ECONNRESET|UND_ERR_SOCKET/.test(code));
      if (!(body instanceof PassThrough) && unsent) throw new Unreachable(code);
      throw new ApiError(
        'cluster_unavailable',
        `The node serving this account could not answer (${code || 'error'}); retry.`,
        { retryAfterMs: 1000 },
      );
    }
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined || OWN_ANSWER_HEADERS.has(name)) continue;
      out[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const size = answer.headers['content-length'];
    try {
      if (typeof size === 'string' && ex.method !== 'HEAD') {
        await ex.sendSized(answer.statusCode, out, Number(size), answer.body);
        return;
      }
      ex.beginStream(answer.statusCode, out);
      for await (const chunk of answer.body as AsyncIterable<Buffer>) if (!ex.write(chunk)) await ex.drained();
      ex.end();
    } catch (err) {
      // The home went away mid-answer: end what was started, as a crashed server would.
      this.options.logger.warn('forwarded answer cut', { request_id: ex.requestId, err });
      if (!ex.started)
        throw new ApiError('cluster_unavailable', 'The node serving this account went away; retry.', {
          retryAfterMs: 1000,
        });
      ex.end();
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.close().catch(() => undefined)));
  }
}

/** The request id a forwarding node gave the request (the id its client sees), if it was forwarded. */
export function forwardedRequestId(req: HttpRequest): string | null {
  if (!req.getHeader(FORWARDED_BY)) return null;
  const id = req.getHeader('x-request-id');
  return /^req_[A-Za-z0-9_-]{1,64}$/.test(id) ? id : null;
}

/** Cluster mode: forwards a request whose account lives on another node, else dispatches it here. */
export async function forwardOrDispatch(
  ex: Exchange,
  forwarder: ClusterForwarder,
  deps: Parameters<typeof dispatch>[1],
): Promise<string | null> {
  try {
    if (await forwarder.handle(ex)) return '(forwarded)';
  } catch (err) {
    sendError(ex, err, deps.logger);
    return null;
  }
  return dispatch(ex, deps);
}
