import { HealthObjectSchema, type HealthObject } from '../../protocols/health.js';
import type { AppDeps } from '../app-deps.js';
import { json, type RouteDef } from '../route.js';

/** GET /healthz: liveness for load balancers and tests; outside /v1, no auth. */
export function healthRoutes({ chat }: AppDeps): RouteDef[] {
  const health = (): HealthObject => ({ status: 'ok', backend: chat.name });
  return [
    {
      method: 'GET',
      path: '/healthz',
      auth: 'public',
      schema: { response: HealthObjectSchema },
      handler: () => json(health()),
    },
  ];
}
