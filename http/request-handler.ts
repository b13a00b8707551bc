import { randomBytes } from 'node:crypto';
import type { Authenticator } from '../actors/accounts/authenticator.js';
import type { Cluster } from '../runtime/cluster/start-cluster.js';
import type { Config } from '../runtime/config.js';
import type { Logger } from '../runtime/logger.js';
import { createClientAddress } from './client-address.js';
import { ClusterForwarder, forwardedRequestId, forwardOrDispatch } from './cluster-forward.js';
import { dispatch, sendError } from './dispatch.js';
import { ApiError } from '../protocols/errors.js';
import type { Readiness } from '../runtime/readiness.js';
import { InFlight } from './in-flight.js';
import type { Metrics } from '../runtime/metrics.js';
import type { RequestScope } from '../runtime/request-scope.js';
import type { Tracer } from '@opentelemetry/api';
import { withServerSpan } from './server-span.js';
import { Perimeter } from './perimeter.js';
import type { RouteDef } from './route.js';
import type { Router } from './router.js';
import type { HttpRequest, HttpResponse } from '@trufflesuite/uws-js-unofficial';
import { UwsExchange } from './uws-exchange.js';

/** Paths still answered while draining: the orchestrator watches them. */
const PROBES = new Set(['/healthz', '/readyz']);

/** A request that arrives while the node drains: 503, retry elsewhere (or here once restarted). */
function refuseWhileDraining(ex: UwsExchange, logger: Logger): void {
  const refusal = new ApiError('server_draining', 'This server is shutting down; retry the request.', {
    retryAfterMs: 1000,
  });
  sendError(ex, refusal, logger);
}

/** What answers HTTP requests: the uWS handler, request ids, what is in flight, and the cluster forwarder. */
export interface RequestHandler {
  handle: (res: HttpResponse, req: HttpRequest) => void;
  /** A fresh request id (realtime upgrades take theirs here too). */
  newRequestId: () => string;
  inFlight: InFlight;
  /** Cluster mode: forwards requests of accounts homed elsewhere (null on one node). */
  forwarder: ClusterForwarder | null;
}

/**
 * The per-request path: an exchange over uWS with its request id, a perimeter of its own (it holds
 * the request's slot under the tier's cap until the answer ends), dispatch (or, in cluster mode,
 * forwarding to the account's home), and the metrics once answered.
 */
export function createRequestHandler(
  config: Config,
  parts: {
    router: Router<RouteDef>;
    auth: Authenticator;
    metrics: Metrics;
    logger: Logger;
    cluster: Cluster | null;
    readiness: Readiness;
    /** Set while tracing is on: each request gets a server span. */
    tracer: Tracer | null;
  },
): RequestHandler {
  const { router, auth, metrics, logger, cluster, readiness, tracer } = parts;
  const perimeter = new Perimeter(auth, config.SVC_ADMIN_KEY);
  const dispatchDeps = { router, perimeter, logger, maxBodyBytes: config.SVC_MAX_BODY_BYTES };
  const forwarder = cluster
    ? new ClusterForwarder(cluster.node, auth, {
        logger,
        leaseMs: cluster.leaseMs,
        adminKey: config.SVC_ADMIN_KEY,
        maxBodyBytes: Math.max(config.SVC_MAX_BODY_BYTES, config.SVC_FILE_MAX_BYTES),
      })
    : null;
  const inFlight = new InFlight();
  const clientAddress = createClientAddress(config.SVC_TRUSTED_PROXIES);
  // Request ids: a per-boot random prefix and a counter, unique across restarts and cheap.
  const bootId = randomBytes(6).toString('base64url');
  let counter = 0;
  const newRequestId = () => `req_${bootId}${(++counter).toString(36)}`;
  const handle = (res: HttpResponse, req: HttpRequest) => {
    const ex = new UwsExchange(res, req, (cluster && forwardedRequestId(req)) || newRequestId());
    // One node refuses new work while it drains; a cluster node forwards it to the accounts' new homes.
    if (readiness.draining && !cluster && !PROBES.has(ex.path)) return refuseWhileDraining(ex, logger);
    const client = clientAddress(Buffer.from(res.getRemoteAddressAsText()).toString(), ex.headers);
    const gate = perimeter.forRequest(ex, client);
    const started = performance.now();
    inFlight.enter();
    // The request's fields travel with it explicitly: lines logged through its logger carry its id,
    // client and trace id (runtime/request-scope.ts says why not an AsyncLocalStorage).
    const scope: RequestScope = { requestId: ex.requestId, client };
    const deps = { ...dispatchDeps, perimeter: gate, logger: logger.forRequest(scope), scope };
    const run = () => (forwarder ? forwardOrDispatch(ex, forwarder, deps) : dispatch(ex, deps));
    const answered = tracer ? withServerSpan(tracer, ex, scope, run) : run();
    void answered
      .then((route) =>
        metrics.request(route ?? '(unmatched)', ex.method, ex.status, (performance.now() - started) / 1000),
      )
      .finally(() => {
        inFlight.leave();
        gate.finish();
      });
  };
  return { handle, newRequestId, inFlight, forwarder };
}
