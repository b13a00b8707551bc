import { systemClock, type Clock } from '../runtime/clock.js';
import type { Cluster } from '../runtime/cluster/start-cluster.js';
import type { Config } from '../runtime/config.js';
import type { Tracing } from '../runtime/tracing.js';
import type { ActorRetention } from '../runtime/host/actor-retention.js';
import { createLogger, type Logger } from '../runtime/logger.js';
import type { AppDeps } from './app-deps.js';
import { serveApp } from './app-lifecycle.js';
import { bootActors } from './boot-actors.js';
import { RealtimeRelay } from './realtime/realtime-relay.js';
import { serveRealtime } from './realtime/realtime-socket.js';
import { createRequestHandler } from './request-handler.js';
import type { RouteDef } from './route.js';
import { Router } from './router.js';
import { allRoutes } from './routes/index.js';
import { createUwsApp } from './uws-app.js';
import { wireServices } from './wiring/wire-services.js';

/** A built server: listen, then close. */
export interface App {
  readonly deps: AppDeps;
  /** The background sweep of ended actors' history (running once listening). */
  readonly retention: ActorRetention;
  /** Starts listening; resolves with the bound port (useful with PORT=0). */
  listen(): Promise<number>;
  /** Stops accepting, drains, writes pending counters and closes the store. */
  close(): Promise<void>;
}

/**
 * Builds the server for `config` without listening: the services over one store and actor host
 * (`wireServices`), the actors brought back (`bootActors`), one router with every route module,
 * the request path (`createRequestHandler`) and the realtime socket on one uWS app, and the
 * lifecycle (`serveApp`).
 */
export function buildApp(
  config: Config,
  options: { clock?: Clock; logger?: Logger; cluster?: Cluster; tracing?: Tracing } = {},
): App {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.SVC_LOG_LEVEL);
  const cluster = options.cluster ?? null;
  const tracer = options.tracing?.tracer ?? null;
  const services = wireServices(config, { clock, logger, cluster, tracer });
  const { deps } = services;
  const booted = bootActors({ host: deps.host, calls: deps.realtime.calls, cluster, clock, logger });
  const router = new Router<RouteDef>();
  const routes = allRoutes(deps);
  for (const route of routes) router.add(route.method, route.path, route);
  deps.contract.setRoutes(routes);
  const requests = createRequestHandler(config, {
    router,
    auth: deps.auth,
    metrics: deps.inspection.metrics,
    logger,
    cluster,
    readiness: deps.readiness,
    tracer,
  });
  const app = createUwsApp(config).any('/*', requests.handle);
  const realtimeSockets = serveRealtime(app, {
    calls: deps.realtime.calls,
    auth: deps.auth,
    logger,
    idleTimeoutS: config.SVC_REALTIME_IDLE_TIMEOUT_S,
    newRequestId: requests.newRequestId,
    limits: { dropAudioBytes: config.SVC_REALTIME_DROP_AUDIO_BYTES, closeBytes: config.SVC_REALTIME_CLOSE_BYTES },
    relay: cluster ? new RealtimeRelay(cluster.node, deps.auth, logger) : undefined,
    draining: cluster ? undefined : () => deps.readiness.draining,
  });
  const lifecycle = serveApp(config, { app, services, requests, realtimeSockets, booted });
  return { deps, retention: services.retention, ...lifecycle };
}
