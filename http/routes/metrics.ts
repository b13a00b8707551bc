import type { AppDeps } from '../app-deps.js';
import type { RouteDef } from '../route.js';

/** GET /metrics: the operator metrics in the Prometheus text format, behind the admin key (off without it). */
export function metricsRoutes({ config, inspection: { metrics } }: AppDeps): RouteDef[] {
  if (!config.SVC_ADMIN_KEY) return [];
  return [
    {
      method: 'GET',
      path: '/metrics',
      auth: 'admin',
      schema: { summary: 'Operator metrics (Prometheus text exposition format)', media: ['text/plain; version=0.0.4'] },
      async handler(ctx) {
        const text = await metrics.text();
        ctx.ex.send(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' }, text);
        return undefined;
      },
    },
  ];
}
