// The cluster scenario (issue 18): what cluster mode costs and how it behaves, from one run.
//  1. One node: chat completions and sessions against a single-node server (no NATS), then against
//     the same server in cluster mode over one local nats-server (JetStream, R1), same settings.
//  2. Three nodes over a 3-server NATS cluster (R3): sessions whose account lives on node 1,
//     each followed over SSE on node 1 (direct) and on node 2 (forwarded to node 1) at once;
//     delivery latency per event = receive time − the event's `ts`.
//  3. Takeover: a slow session on node 1 followed on node 2, node 1 killed with SIGKILL; the time
//     until the follower, reconnecting on node 2 with Last-Event-ID, gets the next event, and
//     until node 2's GET /admin/v1/cluster shows node 1 down. Node 1 restarts between repeats.
// Minutes long, so asked for by name only: `npm run bench -- --scenario cluster`.
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Histogram, type HistogramData, type LatencySummary } from '../load/histogram.js';
import { UNIQUE_MARKER, type LoadProgress } from '../load/load-client.js';
import { ResourceSampler } from '../load/process-sampler.js';
import { runLoadInWorker } from '../load/run-in-worker.js';
import { callJson, createAccount, followSession } from './cluster-http.js';
import {
  benchRoot,
  gatewayProcess,
  newAdminKey,
  startNats,
  startNatsCluster,
  type GatewayProcess,
  type NatsUnderTest,
} from './cluster-processes.js';
import { runSessionLoad } from './session-load.js';
import { measureCrossNode, type CrossNodeReport } from './cross-node.js';
import { median, ratio, round } from './figures.js';
import { takeoverOnce, waitRejoined, type TakeoverReport, type TakeoverRun } from './takeover.js';

export type { CrossNodeReport } from './cross-node.js';
export type { TakeoverReport } from './takeover.js';

/** The scenario's name on the command line. */
export const CLUSTER_SCENARIO = 'cluster';

/** Settings of the cluster scenario. */
export interface ClusterSettings {
  /** One node: chat connections, and sessions in flight. */
  connections: number;
  /** One node: each measured window (chat, sessions), after `warmupMs`. */
  durationMs: number;
  warmupMs: number;
  timeoutMs: number;
  /** Cross-node: sessions followed on both nodes, and how many run at once. */
  crossSessions: number;
  crossLanes: number;
  /** Takeover: SIGKILLs of node 1, and the lease the nodes run with (SVC_CLUSTER_LEASE_MS). */
  takeovers: number;
  leaseMs: number;
  onStep?: (text: string) => void;
  onProgress?: (label: string, progress: LoadProgress) => void;
}

/** One target's throughput and latency in one measured window. */
export interface ClusterLoadRow {
  /** Completed in the window: requests (chat) or sessions. */
  count: number;
  perSecond: number;
  latencyMs: LatencySummary;
  errors: Record<string, number>;
  errorSamples: Record<string, string>;
  /** The gateway's CPU over the window (100 = one core), and the nats-server's (cluster mode). */
  gatewayCpuPercent: number | null;
  natsCpuPercent: number | null;
}

/** Cluster ÷ single of one figure pair (req/s: below 1 is slower; latency: above 1 is slower). */
export interface ClusterRatio {
  perSecond: number;
  p50: number;
  p99: number;
}

export interface OneNodeFigure {
  single: ClusterLoadRow;
  cluster: ClusterLoadRow;
  ratio: ClusterRatio;
}

/** Part 1: one node without and with cluster mode (R1). */
export interface OneNodeReport {
  chat: OneNodeFigure;
  sessions: OneNodeFigure;
}

/** Part 2: the same events followed on the home node and through another node. */
export interface ClusterReport {
  scenario: typeof CLUSTER_SCENARIO;
  settings: {
    connections: number;
    durationS: number;
    warmupS: number;
    crossSessions: number;
    crossLanes: number;
    takeovers: number;
    leaseMs: number;
  };
  oneNode: OneNodeReport;
  crossNode: CrossNodeReport;
  takeover: TakeoverReport;
  /** 1-minute load average before and after the run. */
  loadAverage: { start: number; end: number };
}

/** Samples the gateway and the nats-servers over one window. */
function sampleWindow(
  gateway: GatewayProcess,
  nats: NatsUnderTest | null,
): () => { gateway: number | null; nats: number | null } {
  const ours = gateway.pid === null ? null : new ResourceSampler(gateway.pid);
  const theirs = (nats?.pids ?? []).map((pid) => new ResourceSampler(pid));
  ours?.start();
  for (const sampler of theirs) sampler.start();
  return () => {
    const gatewayCpu = ours?.stop()?.cpuPercent ?? null;
    const natsCpu = theirs.map((sampler) => sampler.stop()?.cpuPercent ?? 0);
    return {
      gateway: gatewayCpu,
      nats: natsCpu.length
        ? round(
            natsCpu.reduce((a, b) => a + b, 0),
            1,
          )
        : null,
    };
  };
}

/** Part 1 for one mode: a fresh server (and, in cluster mode, a fresh nats-server), chat then sessions. */
/** One row of the one-node table: how many completed in the window, their latencies and errors, and the CPU it took. */
function loadRow(
  count: number,
  run: {
    windowMs: number;
    latency: HistogramData;
    errors: Record<string, number>;
    errorSamples: Record<string, string>;
  },
  cpu: { gateway: number | null; nats: number | null },
): ClusterLoadRow {
  return {
    count,
    perSecond: round((count / Math.max(1, run.windowMs)) * 1000, 1),
    latencyMs: new Histogram(run.latency).summary(),
    errors: run.errors,
    errorSamples: run.errorSamples,
    gatewayCpuPercent: cpu.gateway,
    natsCpuPercent: cpu.nats,
  };
}

async function measureOneNode(
  mode: 'single' | 'cluster',
  s: ClusterSettings,
): Promise<{ chat: ClusterLoadRow; sessions: ClusterLoadRow }> {
  const root = benchRoot(`svc-bench-cluster-${mode}-`);
  let nats: NatsUnderTest | null = null;
  let gateway: GatewayProcess | null = null;
  try {
    if (mode === 'cluster') nats = await startNats();
    const env: Record<string, string> = nats
      ? { SVC_NATS_URL: nats.urls[0]!, SVC_NODE_ID: 'solo', SVC_BLOB_DIR: join(root.path, 'blobs') }
      : {};
    gateway = gatewayProcess('solo', root.path, newAdminKey(), env);
    await gateway.start();
    const chatAccount = await createAccount(gateway.url, gateway.adminKey);
    const sessionAccount = await createAccount(gateway.url, gateway.adminKey);
    await prime(gateway.url, chatAccount.token, sessionAccount.token);

    s.onStep?.(`cluster: one node (${mode}), chat completions, ${s.connections} connections`);
    let stop = sampleWindow(gateway, nats);
    const chat = await runLoadInWorker(
      {
        url: `${gateway.url}/v1/chat/completions`,
        headers: { authorization: `Bearer ${chatAccount.token}` },
        body: JSON.stringify({
          model: 'pro-1',
          messages: [{ role: 'user', content: `Cluster probe ${UNIQUE_MARKER}` }],
          max_tokens: 16,
        }),
        mode: 'json',
        connections: s.connections,
        durationMs: s.durationMs,
        warmupMs: s.warmupMs,
        rate: null,
        maxRequests: null,
        timeoutMs: s.timeoutMs,
      },
      (progress) => s.onProgress?.(`cluster ${mode} chat`, progress),
    );
    const chatRow = loadRow(chat.requests, chat, stop());

    s.onStep?.(`cluster: one node (${mode}), sessions, ${s.connections} in flight`);
    const run = Math.random().toString(36).slice(2, 8);
    stop = sampleWindow(gateway, nats);
    const sessions = await runSessionLoad({
      origin: gateway.url,
      token: sessionAccount.token,
      connections: s.connections,
      durationMs: s.durationMs,
      warmupMs: s.warmupMs,
      timeoutMs: s.timeoutMs,
      body: (n) => ({
        model: 'pro-1',
        messages: [{ role: 'user', content: `Session probe ${run}-${n}` }],
        max_tokens: 16,
      }),
    });
    const sessionRow = loadRow(sessions.sessions, sessions, stop());
    return { chat: chatRow, sessions: sessionRow };
  } finally {
    await gateway?.kill('SIGKILL');
    await nats?.close();
    root.remove();
  }
}

/**
 * A few unmeasured requests before the windows, so both servers start them with the same code
 * loaded (lazy modules, the first session's machine) whatever the warm-up.
 */
async function prime(origin: string, chatToken: string, sessionToken: string): Promise<void> {
  for (let i = 0; i < 10; i++) {
    const res = await callJson(origin, 'POST', '/v1/chat/completions', chatToken, {
      model: 'pro-1',
      messages: [{ role: 'user', content: `Priming ${i} ${Math.random()}` }],
      max_tokens: 16,
    });
    if (res.status !== 200)
      throw new Error(`priming chat completion failed: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  }
  for (let i = 0; i < 2; i++) {
    const created = await callJson(origin, 'POST', '/v1/chat/sessions', sessionToken, {
      model: 'pro-1',
      messages: [{ role: 'user', content: `Priming ${i} ${Math.random()}` }],
      max_tokens: 16,
    });
    if (created.status !== 201)
      throw new Error(`priming session failed: ${created.status} ${JSON.stringify(created.body).slice(0, 300)}`);
    await followSession(origin, created.body.id as string, sessionToken, 0);
  }
}

function compare(single: ClusterLoadRow, cluster: ClusterLoadRow): OneNodeFigure {
  return {
    single,
    cluster,
    ratio: {
      perSecond: ratio(cluster.perSecond, single.perSecond),
      p50: ratio(cluster.latencyMs.p50, single.latencyMs.p50),
      p99: ratio(cluster.latencyMs.p99, single.latencyMs.p99),
    },
  };
}

/** Resolves once `onEvent` has seen an event with seq ≥ `seq`; rejects after `timeoutMs`. */
async function startNode(node: GatewayProcess, s: ClusterSettings): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await node.start();
      return;
    } catch (err) {
      if (attempt >= 3 || !/: exited \(3\)/.test(String(err))) throw err;
      s.onStep?.(`cluster: node ${node.id} was fenced while booting (lease ${s.leaseMs} ms); starting it again`);
    }
  }
}

/** Parts 2 and 3 on one 3-node cluster over a 3-server NATS cluster (R3). */
async function measureThreeNodes(
  s: ClusterSettings,
): Promise<{ crossNode: CrossNodeReport; takeover: TakeoverReport }> {
  const root = benchRoot('svc-bench-cluster-3-');
  let nats: NatsUnderTest | null = null;
  const nodes: GatewayProcess[] = [];
  try {
    s.onStep?.('cluster: starting 3 nats-servers (JetStream cluster) and 3 gateway nodes');
    nats = await startNatsCluster(3);
    const adminKey = newAdminKey();
    const env = {
      SVC_NATS_URL: nats.urls.join(','),
      SVC_BLOB_DIR: join(root.path, 'blobs'),
      SVC_CLUSTER_LEASE_MS: String(s.leaseMs),
      SVC_DRAIN_MS: '1000',
    };
    for (const id of ['g1', 'g2', 'g3']) {
      const node = gatewayProcess(id, root.path, adminKey, { ...env, SVC_NODE_ID: id });
      nodes.push(node);
      await startNode(node, s);
    }
    const [g1, g2] = nodes as [GatewayProcess, GatewayProcess, GatewayProcess];
    await waitRejoined(g2, 'g1', 30_000);
    await waitRejoined(g1, 'g2', 30_000);

    s.onStep?.(`cluster: cross-node delivery, ${s.crossSessions} sessions homed on node 1, followed on nodes 1 and 2`);
    const crossNode = await measureCrossNode(g1, g2, s);

    const runs: TakeoverRun[] = [];
    for (let i = 0; i < s.takeovers; i++) {
      s.onStep?.(`cluster: takeover ${i + 1} of ${s.takeovers} (SIGKILL node 1, lease ${s.leaseMs} ms)`);
      try {
        if (!g1.up) {
          // Node 1 comes back as a new incarnation: same id, same data directory.
          await startNode(g1, s);
          await waitRejoined(g2, 'g1', 30_000);
        }
        runs.push(await takeoverOnce(g1, g2, s));
      } catch (err) {
        runs.push({
          nextEventMs: null,
          nextEventType: null,
          downMs: null,
          movedMs: null,
          movedTo: null,
          finalState: null,
          gapFree: false,
          reconnects: 0,
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
    return {
      crossNode,
      takeover: {
        leaseMs: s.leaseMs,
        fencedExits: nodes.reduce((sum, node) => sum + node.fencedExits, 0),
        runs,
        median: {
          nextEventMs: median(runs.map((r) => r.nextEventMs)),
          downMs: median(runs.map((r) => r.downMs)),
          movedMs: median(runs.map((r) => r.movedMs)),
        },
      },
    };
  } finally {
    await Promise.all(nodes.map((node) => node.kill('SIGKILL')));
    await nats?.close();
    root.remove();
  }
}

/** Runs the three parts in order; every process it starts is stopped before it returns or throws. */
export async function runClusterScenario(s: ClusterSettings): Promise<ClusterReport> {
  const start = loadavg()[0] ?? 0;
  const single = await measureOneNode('single', s);
  const cluster = await measureOneNode('cluster', s);
  const three = await measureThreeNodes(s);
  return {
    scenario: CLUSTER_SCENARIO,
    settings: {
      connections: s.connections,
      durationS: s.durationMs / 1000,
      warmupS: s.warmupMs / 1000,
      crossSessions: s.crossSessions,
      crossLanes: s.crossLanes,
      takeovers: s.takeovers,
      leaseMs: s.leaseMs,
    },
    oneNode: { chat: compare(single.chat, cluster.chat), sessions: compare(single.sessions, cluster.sessions) },
    crossNode: three.crossNode,
    takeover: three.takeover,
    loadAverage: { start: round(start), end: round(loadavg()[0] ?? 0) },
  };
}
