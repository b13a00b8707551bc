import type { CallRuntime } from '../actors/realtime/call-runtime.js';
import type { Clock } from '../runtime/clock.js';
import { placeActors, servedHere } from '../runtime/cluster/actor-placement.js';
import type { Cluster } from '../runtime/cluster/start-cluster.js';
import type { ActorHost } from '../runtime/host/actor-host.js';
import type { Logger } from '../runtime/logger.js';

/**
 * Brings the actors back after a restart (every machine registered first): unfinished ones are
 * rehydrated or parked; in cluster mode only those this node serves, and takeovers bring more.
 * Calls open at the stop lost their sockets: they are closed and charged before serving, so a
 * client's first look at its account after a restart already shows the charge. Resolves when
 * those calls are closed.
 */
export function bootActors(parts: {
  host: ActorHost;
  calls: CallRuntime;
  cluster: Cluster | null;
  clock: Clock;
  logger: Logger;
}): Promise<void> {
  const { host, calls, cluster, clock, logger } = parts;
  const rehydrated = host.rehydrate(cluster ? servedHere(cluster.node) : undefined);
  if (cluster) {
    // Realtime calls that were open on a node taken over are closed and charged by the new home.
    placeActors(cluster.node, host, logger, () => {
      void calls
        .closeOrphans(clock.now())
        .catch((err: unknown) => logger.error('closing taken-over realtime calls failed', { err }));
    });
  }
  if (rehydrated > 0) logger.info('actors rehydrated', { count: rehydrated });
  return calls.closeOrphans(clock.now()).then(
    (count) => void (count > 0 && logger.info('realtime calls closed after restart', { count })),
    (err: unknown) => logger.error('closing orphaned realtime calls failed', { err }),
  );
}
