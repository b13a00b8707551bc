import type { ClusterObject } from '../../protocols/cluster.js';
import type { ActorHost } from '../host/actor-host.js';
import type { ClusterNode } from './cluster-node.js';

/** Actors listed per node in the view (the count is always whole). */
const ACTORS_LISTED = 200;

/** The cluster as this node sees it: every node, its lease state, its accounts and its unfinished actors. */
export function clusterView(
  node: ClusterNode | null,
  host: ActorHost,
  leaseMs: number | null,
  log: ClusterObject['log'] = null,
): ClusterObject {
  if (!node)
    return {
      object: 'cluster',
      mode: 'single',
      node: null,
      lease_ms: null,
      applied_seq: null,
      log: null,
      nodes: [],
      orphaned_actors: 0,
    };
  const accounts = new Map<string, number>();
  const homeOf = new Map<string, string | null>();
  for (const { key, value } of node.homes.getRange()) {
    const valid = node.valid(value);
    homeOf.set(key as string, valid ? value.node : null);
    if (valid) accounts.set(value.node, (accounts.get(value.node) ?? 0) + 1);
  }
  const actors = new Map<string, { id: string; machine: string; owner_id: string }[]>();
  const counts = new Map<string, number>();
  let orphaned = 0;
  for (const record of host.unfinishedRecords()) {
    const home = homeOf.get(record.ownerId) ?? null;
    if (!home) {
      orphaned++;
      continue;
    }
    counts.set(home, (counts.get(home) ?? 0) + 1);
    const list = actors.get(home) ?? [];
    if (list.length < ACTORS_LISTED) list.push({ id: record.id, machine: record.machine, owner_id: record.ownerId });
    actors.set(home, list);
  }
  const nodes = [...node.nodes.getRange()].map(({ value }) => ({
    id: value.id,
    url: value.url,
    epoch: value.epoch,
    state: value.state,
    fenced: node.fences.get(value.id) !== value.epoch,
    started_at: Math.floor(value.startedAt / 1000),
    heard_ms_ago: value.state === 'down' ? null : node.heardMsAgo(value.id, value.epoch),
    accounts: accounts.get(value.id) ?? 0,
    actors: actors.get(value.id) ?? [],
    actor_count: counts.get(value.id) ?? 0,
  }));
  return {
    object: 'cluster',
    mode: 'cluster',
    node: node.id,
    lease_ms: leaseMs,
    applied_seq: node.store.appliedSeq,
    log,
    nodes,
    orphaned_actors: orphaned,
  };
}
