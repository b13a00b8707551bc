import { ClusterObjectSchema } from '../../protocols/cluster.js';
import { clusterView } from '../../runtime/cluster/cluster-view.js';
import type { AppDeps } from '../app-deps.js';
import { json, type RouteDef } from '../route.js';

/** GET /admin/v1/cluster: the nodes, their leases and the actors each owns (docs/cluster.md). */
export function clusterRoutes({ cluster, host }: AppDeps): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/admin/v1/cluster',
      auth: 'admin',
      schema: { summary: 'Cluster nodes, their leases and the actors each owns', response: ClusterObjectSchema },
      async handler() {
        if (!cluster) return json(clusterView(null, host, null));
        const { first, last } = await cluster.store.stream.bounds();
        return json(
          clusterView(cluster.node, host, cluster.leaseMs, {
            first_seq: first,
            last_seq: last,
            snapshot_seq: cluster.snapshots.latest()?.seq ?? null,
          }),
        );
      },
    },
  ];
}
