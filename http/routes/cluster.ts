import { ClusterObjectSchema } from '../../protocols/cluster.js';
import { clusterView } from '../../runtime/cluster/cluster-view.js';
import type { AppDeps } from '../app.js';
import { json, type RouteDef } from '../route.js';

/** GET /admin/v1/cluster: the nodes, their leases and the actors each owns (docs/cluster.md). */
export function clusterRoutes({ cluster, host }: AppDeps): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/admin/v1/cluster',
      auth: 'admin',
      schema: { summary: 'Cluster nodes, their leases and the actors each owns', response: ClusterObjectSchema },
      handler: () => json(clusterView(cluster?.node ?? null, host, cluster?.leaseMs ?? null)),
    },
  ];
}
