import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { NatsBus } from '../bus/nats-bus.js';
import { LmdbStore } from '../store/lmdb-store.js';
import { join } from 'node:path';
import { ClusterNode } from './cluster-node.js';
import { ClusterSnapshots, restoreSnapshot } from './cluster-snapshots.js';
import { LogStream } from './log-stream.js';
import { ReplicatedStore } from './replicated-store.js';

/** Cluster mode's parts: the NATS connection, the replicated store over this node's LMDB, and membership. */
export interface Cluster {
  nc: NatsConnection;
  store: ReplicatedStore;
  node: ClusterNode;
  snapshots: ClusterSnapshots;
  leaseMs: number;
  /** Whether the NATS connection is up now (false while it reconnects). */
  isConnected(): boolean;
  close(): Promise<void>;
}

/** Follows the connection's status: down from a disconnect until the reconnect. */
function watchConnection(nc: NatsConnection): () => boolean {
  let connected = true;
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') connected = false;
      else if (status.type === 'reconnect') connected = true;
    }
  })();
  return () => connected && !nc.isClosed();
}

/**
 * Connects to NATS (`SVC_NATS_URL`), opens the replicated store (caught up with the log before
 * anything reads it) and joins the cluster as a new incarnation of `SVC_NODE_ID`. Loaded only in
 * cluster mode (main imports this module dynamically), so one node never loads NATS.
 */
export async function startCluster(config: Config, logger: Logger): Promise<Cluster> {
  const servers = config.SVC_NATS_URL!.split(',');
  const nodeId = config.SVC_NODE_ID!;
  // No async stack traces: they cost an Error object per JetStream publish (~4 % of a node's CPU under load).
  const nc = await connect({
    servers,
    name: `svc-${nodeId}`,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: true,
    noAsyncTraces: true,
  });
  // The node's LMDB is its applied copy of the log (which holds the truth, on a quorum of disks),
  // recording how far it applied in the same commit: no flush per commit is needed.
  const releasePagesEveryMs = config.SVC_STORE_RELEASE_PAGES_S * 1000;
  let local = LmdbStore.open(config.SVC_DATA_DIR, { sync: false, releasePagesEveryMs });
  // Behind the trimmed log (an empty disk, or down while a snapshot was taken): start from the newest snapshot.
  const snapshotRoot = join(config.SVC_BLOB_DIR ?? config.SVC_DATA_DIR, 'cluster-snapshots');
  const first = await LogStream.firstSeq(nc, config.SVC_NATS_STREAM);
  const applied = ReplicatedStore.appliedIn(local);
  if (first !== null && applied + 1 < first) {
    await local.close();
    const used = restoreSnapshot(config.SVC_DATA_DIR, snapshotRoot, first - 1);
    if (!used)
      throw new Error(
        `the log starts at ${first} but this node applied only ${applied} and no snapshot in ${snapshotRoot} reaches ${first - 1}`,
      );
    logger.info('restored from a cluster snapshot', { snapshot_seq: used.seq, log_first_seq: first });
    local = LmdbStore.open(config.SVC_DATA_DIR, { sync: false, releasePagesEveryMs });
  }
  const store = await ReplicatedStore.open(nc, local, {
    nodeId,
    stream: config.SVC_NATS_STREAM,
    subject: `svc.${config.SVC_NATS_STREAM.toLowerCase()}`,
    replicas: config.SVC_NATS_REPLICAS ?? Math.min(3, servers.length),
    logger,
  });
  const bus = NatsBus.over(nc, (err, subject) => logger.warn('cluster message handler failed', { subject, err }));
  const node = new ClusterNode(store, bus, { nodeId, leaseMs: config.SVC_CLUSTER_LEASE_MS, logger });
  await node.join();
  const snapshots = new ClusterSnapshots(store, local, node, {
    root: snapshotRoot,
    every: config.SVC_CLUSTER_SNAPSHOT_EVERY,
    logger,
  });
  snapshots.start();
  logger.info('joined the cluster', { node: nodeId, epoch: node.epoch, applied_seq: store.appliedSeq });
  return {
    nc,
    store,
    node,
    snapshots,
    leaseMs: config.SVC_CLUSTER_LEASE_MS,
    isConnected: watchConnection(nc),
    close: async () => {
      node.stop();
      await nc.drain().catch(() => undefined);
    },
  };
}
