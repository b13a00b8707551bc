import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChildServer, type ChildServer } from '../child-server.js';
import { ADMIN_KEY } from '../harness.js';
import { startNatsCluster, type NatsClusterUnderTest } from './nats-cluster.js';

/** One gateway node of the test's cluster: its process (null while down) and how to restart it. */
export interface GatewayNode {
  id: string;
  server: ChildServer | null;
  readonly url: string;
  /** Starts the node (again: a new incarnation on the same data directory). */
  start(): Promise<void>;
}

/** A 3-server NATS JetStream cluster and gateway nodes in cluster mode over it, sharing one blob directory. */
export interface GatewayCluster {
  nats: NatsClusterUnderTest;
  nodes: GatewayNode[];
  /** Starts one more node `id` on an empty data directory. */
  addNode(id: string): Promise<GatewayNode>;
  close(): Promise<void>;
}

/** One key for sealed secrets on every node (cluster mode requires it). */
const SECRETS_KEY = Buffer.alloc(32, 7).toString('base64');

/**
 * Starts `size` gateway nodes (`tsx http/main.ts`, real uWS, LMDB in its own directory each) in
 * cluster mode over a fresh 3-server NATS cluster, one after another, each on a free port.
 */
export async function startGatewayCluster(size = 3, env: Record<string, string> = {}): Promise<GatewayCluster> {
  const nats = await startNatsCluster(3);
  const root = mkdtempSync(join(tmpdir(), 'svc-gateways-'));
  const shared = {
    SVC_NATS_URL: nats.urls.join(','),
    SVC_BLOB_DIR: join(root, 'blobs'),
    SVC_SECRETS_KEY: SECRETS_KEY,
    SVC_ADMIN_KEY: ADMIN_KEY,
    SVC_CLUSTER_LEASE_MS: '1500',
    SVC_DRAIN_MS: '1000',
    ...env,
  };
  const gateway = (id: string): GatewayNode => {
    const node: GatewayNode = {
      id,
      server: null,
      get url() {
        if (!node.server) throw new Error(`node ${id} is down`);
        return node.server.url;
      },
      start: async () => {
        node.server = await startChildServer({ ...shared, SVC_NODE_ID: id, SVC_DATA_DIR: join(root, id) });
        node.server.process.once('exit', () => (node.server = null));
      },
    };
    return node;
  };
  const nodes = Array.from({ length: size }, (_, i) => gateway(`g${i + 1}`));
  try {
    for (const node of nodes) await node.start();
  } catch (err) {
    await Promise.all(nodes.flatMap((node) => (node.server ? [node.server.kill('SIGKILL')] : [])));
    await nats.close();
    throw err;
  }
  return {
    nats,
    nodes,
    addNode: async (id) => {
      const node = gateway(id);
      nodes.push(node);
      await node.start();
      return node;
    },
    close: async () => {
      await Promise.all(nodes.flatMap((node) => (node.server ? [node.server.kill('SIGKILL')] : [])));
      await nats.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
