import type { AppDeps } from '../app.js';
import { json, type RouteDef } from '../route.js';

/** GET /healthz: liveness for load balancers and tests; outside /v1, no auth. */
export function healthRoutes({ chat }: AppDeps): RouteDef[] {
  return [{ method: 'GET', path: '/healthz', auth: 'public', handler: () => json({ status: 'ok', backend: chat.name }) }];
}
