import type { ActorHost } from '../host/actor-host.js';
import type { Logger } from '../logger.js';
import type { ClusterNode } from './cluster-node.js';

/** The actors a node brings back at boot: those of the accounts whose valid home it is. */
export function servedHere(node: ClusterNode): (record: { ownerId: string }) => boolean {
  return (record) => {
    const home = node.homes.get(record.ownerId);
    return node.valid(home) && home.node === node.id;
  };
}

/**
 * Wires placement to the host: an account this node claims brings its unfinished actors here (a
 * session mid-step resumes, deadlines re-arm; then `afterTakeover` runs), and when a node goes
 * down or drains, the accounts of orphaned unfinished actors are claimed without waiting for a
 * request.
 */
export function placeActors(node: ClusterNode, host: ActorHost, logger: Logger, afterTakeover: () => void): void {
  node.onClaimed = (accountId) => {
    const count = host.rehydrate((record) => record.ownerId === accountId);
    if (count > 0) logger.info('actors taken over', { account_id: accountId, count });
    afterTakeover();
  };
  node.onHomesFreed = () => {
    const owners = new Set<string>();
    for (const record of host.unfinishedRecords()) owners.add(record.ownerId);
    for (const owner of owners) {
      if (node.valid(node.homes.get(owner))) continue;
      void node
        .claim(owner)
        .catch((err: unknown) => logger.warn('claiming an orphaned account failed', { account_id: owner, err }));
    }
  };
}
