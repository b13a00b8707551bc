import { ApiError } from '../../protocols/errors.js';
import { HealthObjectSchema, ReadinessObjectSchema, type HealthObject } from '../../protocols/health.js';
import type { AppDeps } from '../app-deps.js';
import { json, type RouteDef } from '../route.js';

/**
 * GET /healthz (liveness: the process answers) and GET /readyz (readiness: booted, store open,
 * not draining, NATS connected in cluster mode; 503 `not_ready` naming what failed), outside /v1,
 * no auth, for load balancers and orchestrators. Neither says anything secret.
 */
export function healthRoutes({ chat, readiness }: AppDeps): RouteDef[] {
  const health = (): HealthObject => ({ status: 'ok', backend: chat.name });
  return [
    {
      method: 'GET',
      path: '/healthz',
      auth: 'public',
      schema: { response: HealthObjectSchema },
      handler: () => json(health()),
    },
    {
      method: 'GET',
      path: '/readyz',
      auth: 'public',
      schema: {
        summary: 'Readiness: 503 not_ready while booting, draining or without NATS',
        response: ReadinessObjectSchema,
      },
      handler: () => {
        const { ready, checks } = readiness.report();
        if (ready) return json({ status: 'ready', checks });
        const failing = [
          !checks.booted && 'booting',
          !checks.store_open && 'store closed',
          checks.draining && 'draining',
          checks.nats_connected === false && 'NATS disconnected',
        ].filter(Boolean);
        throw new ApiError('not_ready', `Not ready: ${failing.join(', ')}.`, { retryAfterMs: 1000 });
      },
    },
  ];
}
