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
import { setTimeout as sleep } from 'node:timers/promises';
import { Histogram, type HistogramData, type LatencySummary } from '../load/histogram.js';
import { UNIQUE_MARKER, type LoadProgress } from '../load/load-client.js';
import { ResourceSampler } from '../load/process-sampler.js';
import { runLoadInWorker } from '../load/run-in-worker.js';
import { callJson, createAccount, followSession, type FollowedEvent } from './cluster-http.js';
import { benchRoot, gatewayProcess, newAdminKey, startNats, startNatsCluster, type GatewayProcess, type NatsUnderTest } from './cluster-processes.js';
import { runSessionLoad } from './session-load.js';

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
export interface CrossNodeReport {
  sessions: number;
  lanes: number;
  /** What the latency is: receive time − the event's server `ts` (epoch ms, same machine clock). */
  method: 'receive − event ts';
  /** Whether the cluster view on node 2 listed a session of the account under node 1 (its home). */
  homeOnNode1: boolean;
  /** Live events measured per follower (those after approval). */
  events: number;
  /** Events one follower got and the other did not (should be 0). */
  unmatched: number;
  direct: LatencySummary;
  forwarded: LatencySummary;
  /** Per event: node-2 follower's receive time − node-1 follower's (a negative gap counts as 0). */
  added: LatencySummary;
  /** Events the node-2 follower received before the node-1 follower did. */
  forwardedFirst: number;
  ratio: { p50: number; p99: number };
  errors: string[];
}

/** One SIGKILL of node 1 with a session running there. */
export interface TakeoverRun {
  /** SIGKILL → the reconnected follower on node 2 receives the next event. */
  nextEventMs: number | null;
  nextEventType: string | null;
  /** SIGKILL → node 2's GET /admin/v1/cluster shows node 1 `down`. */
  downMs: number | null;
  /** SIGKILL → node 2's view lists the session under a live node (null: not seen while it ran). */
  movedMs: number | null;
  movedTo: string | null;
  /** The session's state once its stream ended. */
  finalState: string | null;
  /** The follower saw every seq once across the kill (1 … last). */
  gapFree: boolean;
  /** Event streams the follower opened on node 2 after the kill. */
  reconnects: number;
  error: string | null;
}

/** Part 3: takeover after a SIGKILL. */
export interface TakeoverReport {
  leaseMs: number;
  /**
   * Times a node of the 3-node cluster exited fenced (code 3) without being killed by the bench:
   * at boot (started again, up to 3 tries) or during the run. 0 on a quiet machine.
   */
  fencedExits: number;
  runs: TakeoverRun[];
  median: { nextEventMs: number | null; downMs: number | null; movedMs: number | null };
}

/** What the cluster scenario measured. */
export interface ClusterReport {
  scenario: typeof CLUSTER_SCENARIO;
  settings: { connections: number; durationS: number; warmupS: number; crossSessions: number; crossLanes: number; takeovers: number; leaseMs: number };
  oneNode: OneNodeReport;
  crossNode: CrossNodeReport;
  takeover: TakeoverReport;
  /** 1-minute load average before and after the run. */
  loadAverage: { start: number; end: number };
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
const ratio = (a: number, b: number) => (b > 0 ? round(a / b, 3) : 0);

function median(values: (number | null)[]): number | null {
  const known = values.filter((value): value is number => value !== null).sort((a, b) => a - b);
  if (!known.length) return null;
  const mid = Math.floor(known.length / 2);
  return known.length % 2 ? known[mid]! : round((known[mid - 1]! + known[mid]!) / 2, 1);
}

/** Samples the gateway and the nats-servers over one window. */
function sampleWindow(gateway: GatewayProcess, nats: NatsUnderTest | null): () => { gateway: number | null; nats: number | null } {
  const ours = gateway.pid === null ? null : new ResourceSampler(gateway.pid);
  const theirs = (nats?.pids ?? []).map((pid) => new ResourceSampler(pid));
  ours?.start();
  for (const sampler of theirs) sampler.start();
  return () => {
    const gatewayCpu = ours?.stop()?.cpuPercent ?? null;
    const natsCpu = theirs.map((sampler) => sampler.stop()?.cpuPercent ?? 0);
    return { gateway: gatewayCpu, nats: natsCpu.length ? round(natsCpu.reduce((a, b) => a + b, 0), 1) : null };
  };
}

/** Part 1 for one mode: a fresh server (and, in cluster mode, a fresh nats-server), chat then sessions. */
/** One row of the one-node table: how many completed in the window, their latencies and errors, and the CPU it took. */
function loadRow(count: number, run: { windowMs: number; latency: HistogramData; errors: Record<string, number>; errorSamples: Record<string, string> }, cpu: { gateway: number | null; nats: number | null }): ClusterLoadRow {
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

async function measureOneNode(mode: 'single' | 'cluster', s: ClusterSettings): Promise<{ chat: ClusterLoadRow; sessions: ClusterLoadRow }> {
  const root = benchRoot(`svc-bench-cluster-${mode}-`);
  let nats: NatsUnderTest | null = null;
  let gateway: GatewayProcess | null = null;
  try {
    if (mode === 'cluster') nats = await startNats();
    const env: Record<string, string> = nats ? { SVC_NATS_URL: nats.urls[0]!, SVC_NODE_ID: 'solo', SVC_BLOB_DIR: join(root.path, 'blobs') } : {};
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
        body: JSON.stringify({ model: 'pro-1', messages: [{ role: 'user', content: `Cluster probe ${UNIQUE_MARKER}` }], max_tokens: 16 }),
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
      body: (n) => ({ model: 'pro-1', messages: [{ role: 'user', content: `Session probe ${run}-${n}` }], max_tokens: 16 }),
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
    const res = await callJson(origin, 'POST', '/v1/chat/completions', chatToken, { model: 'pro-1', messages: [{ role: 'user', content: `Priming ${i} ${Math.random()}` }], max_tokens: 16 });
    if (res.status !== 200) throw new Error(`priming chat completion failed: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  }
  for (let i = 0; i < 2; i++) {
    const created = await callJson(origin, 'POST', '/v1/chat/sessions', sessionToken, { model: 'pro-1', messages: [{ role: 'user', content: `Priming ${i} ${Math.random()}` }], max_tokens: 16 });
    if (created.status !== 201) throw new Error(`priming session failed: ${created.status} ${JSON.stringify(created.body).slice(0, 300)}`);
    await followSession(origin, created.body.id as string, sessionToken, 0);
  }
}

function compare(single: ClusterLoadRow, cluster: ClusterLoadRow): OneNodeFigure {
  return { single, cluster, ratio: { perSecond: ratio(cluster.perSecond, single.perSecond), p50: ratio(cluster.latencyMs.p50, single.latencyMs.p50), p99: ratio(cluster.latencyMs.p99, single.latencyMs.p99) } };
}

/** Resolves once `onEvent` has seen an event with seq ≥ `seq`; rejects after `timeoutMs`. */
function seqReached(timeoutMs: number): { seen: (event: FollowedEvent) => void; ready: (seq: number) => Promise<void> } {
  let last = 0;
  const waiters: { seq: number; resolve: () => void }[] = [];
  return {
    seen: (event) => {
      last = Math.max(last, event.seq);
      for (const waiter of waiters.filter((w) => w.seq <= last)) waiter.resolve();
    },
    ready: (seq) =>
      new Promise<void>((resolve, reject) => {
        if (last >= seq) return resolve();
        const timer = setTimeout(() => reject(new Error(`no event ${seq} within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ seq, resolve: () => (clearTimeout(timer), resolve()) });
      }),
  };
}

/** Part 2: sessions of an account homed on node 1, each followed on node 1 and on node 2 at once. */
async function measureCrossNode(home: GatewayProcess, other: GatewayProcess, s: ClusterSettings): Promise<CrossNodeReport> {
  const account = await createAccount(home.url, home.adminKey);
  // The account's first request lands on node 1: node 1 becomes its home.
  const first = await callJson(home.url, 'GET', '/v1/account', account.token);
  if (first.status !== 200) throw new Error(`first request on node 1 failed: ${first.status} ${JSON.stringify(first.body)}`);
  const direct = new Histogram();
  const forwarded = new Histogram();
  const added = new Histogram();
  const errors: string[] = [];
  let unmatched = 0;
  let forwardedFirst = 0;
  let homeOnNode1 = false;
  let next = 0;
  const readySeq = 2; // created, awaiting_approval: the history before approval
  const run = Math.random().toString(36).slice(2, 8);

  const oneSession = async (n: number) => {
    const created = await callJson(home.url, 'POST', '/v1/chat/sessions', account.token, {
      model: 'pro-1',
      messages: [{ role: 'user', content: `Cross-node probe ${run}-${n}` }],
      max_tokens: 16,
      require_approval: true,
      metadata: { sim: { tokens_per_s: 200 } },
    });
    if (created.status !== 201) throw new Error(`session not created: ${created.status} ${JSON.stringify(created.body).slice(0, 300)}`);
    const id = created.body.id as string;
    if (n === 0) {
      const view = await callJson(other.url, 'GET', '/admin/v1/cluster', other.adminKey);
      homeOnNode1 = Boolean(view.body?.nodes?.find((node: { id: string }) => node.id === home.id)?.actors?.some((actor: { id: string }) => actor.id === id));
    }
    const onHome = seqReached(s.timeoutMs);
    const onOther = seqReached(s.timeoutMs);
    const followHome = followSession(home.url, id, account.token, 0, { onEvent: onHome.seen, timeoutMs: s.timeoutMs });
    const followOther = followSession(other.url, id, account.token, 0, { onEvent: onOther.seen, timeoutMs: s.timeoutMs });
    await Promise.all([onHome.ready(readySeq), onOther.ready(readySeq)]);
    const approved = await callJson(home.url, 'POST', `/v1/chat/sessions/${id}/approve`, account.token);
    if (approved.status !== 200) throw new Error(`approve failed: ${approved.status} ${JSON.stringify(approved.body).slice(0, 300)}`);
    const [a, b] = await Promise.all([followHome, followOther]);
    for (const [name, result] of [['node 1', a], ['node 2', b]] as const) {
      if (result.error || !result.ended) errors.push(`${name} follower of ${id}: ${result.status} ${result.error ?? 'stream did not end'}`);
    }
    const onTwo = new Map(b.events.map((event) => [event.seq, event]));
    for (const event of a.events) {
      if (event.seq <= readySeq) continue;
      direct.record(event.at - event.ts);
      const twin = onTwo.get(event.seq);
      if (!twin) {
        unmatched++;
        continue;
      }
      added.record(twin.at - event.at);
      if (twin.at < event.at) forwardedFirst++;
    }
    const onOne = new Set(a.events.map((event) => event.seq));
    for (const event of b.events) {
      if (event.seq <= readySeq) continue;
      forwarded.record(event.at - event.ts);
      if (!onOne.has(event.seq)) unmatched++;
    }
  };

  const lane = async () => {
    for (let n = next++; n < s.crossSessions; n = next++) {
      try {
        await oneSession(n);
      } catch (err) {
        errors.push(err instanceof Error ? err.message : String(err));
      }
    }
  };
  // The first session alone (it checks the home), then the rest in lanes.
  next = 1;
  try {
    await oneSession(0);
  } catch (err) {
    errors.push(err instanceof Error ? err.message : String(err));
  }
  await Promise.all(Array.from({ length: s.crossLanes }, lane));
  const d = direct.summary();
  const f = forwarded.summary();
  return {
    sessions: s.crossSessions,
    lanes: s.crossLanes,
    method: 'receive − event ts',
    homeOnNode1,
    events: d.count,
    unmatched,
    direct: d,
    forwarded: f,
    added: added.summary(),
    forwardedFirst,
    ratio: { p50: ratio(f.p50, d.p50), p99: ratio(f.p99, d.p99) },
    errors: errors.slice(0, 10),
  };
}

/** Polls node `watcher`'s cluster view until `dead` is down and the session is listed under a live node (or `until` settles). */
async function watchTakeover(watcher: GatewayProcess, dead: string, sessionId: string, killedAt: number, until: Promise<unknown>) {
  let downMs: number | null = null;
  let movedMs: number | null = null;
  let movedTo: string | null = null;
  let finished = false;
  void until.finally(() => (finished = true));
  const deadline = killedAt + 60_000;
  while (performance.now() < deadline && (downMs === null || movedMs === null)) {
    const view = await callJson(watcher.url, 'GET', '/admin/v1/cluster', watcher.adminKey, undefined, 5_000).catch(() => null);
    const at = performance.now() - killedAt;
    const nodes = (view?.body?.nodes ?? []) as { id: string; state: string; actors: { id: string }[] }[];
    if (downMs === null && nodes.some((node) => node.id === dead && node.state === 'down')) downMs = round(at, 1);
    const owner = nodes.find((node) => node.id !== dead && node.state === 'up' && node.actors.some((actor) => actor.id === sessionId));
    if (movedMs === null && owner) {
      movedMs = round(at, 1);
      movedTo = owner.id;
    }
    // Once the session has ended it is no longer listed: stop looking for it, keep looking for `down`.
    if (finished && movedMs === null && downMs !== null) break;
    await sleep(50);
  }
  return { downMs, movedMs, movedTo };
}

/** Waits until `watcher` sees node `id` up and heard from (a restarted node has rejoined). */
async function waitRejoined(watcher: GatewayProcess, id: string, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const view = await callJson(watcher.url, 'GET', '/admin/v1/cluster', watcher.adminKey).catch(() => null);
    const node = (view?.body?.nodes ?? []).find((n: { id: string }) => n.id === id);
    if (node?.state === 'up' && node.heard_ms_ago !== null) return;
    await sleep(100);
  }
  throw new Error(`node ${id} did not rejoin within ${timeoutMs} ms`);
}

/** One takeover: a slow session on node 1, followed on node 2; SIGKILL node 1 once it drafts; reconnect on node 2. */
async function takeoverOnce(g1: GatewayProcess, g2: GatewayProcess, s: ClusterSettings): Promise<TakeoverRun> {
  const account = await createAccount(g1.url, g1.adminKey);
  const created = await callJson(g1.url, 'POST', '/v1/chat/sessions', account.token, {
    model: 'pro-1',
    messages: [{ role: 'user', content: `Explain the cluster to me ${Math.random().toString(36).slice(2, 8)}` }],
    max_tokens: 80,
    metadata: { sim: { tokens_per_s: 25 } },
  });
  if (created.status !== 201) throw new Error(`session not created on node 1: ${created.status} ${JSON.stringify(created.body).slice(0, 300)}`);
  const id = created.body.id as string;
  const seen: FollowedEvent[] = [];
  const before = await followSession(g2.url, id, account.token, 0, {
    timeoutMs: s.timeoutMs,
    onEvent: (event) => {
      seen.push(event);
      return event.type === 'phase' && event.data.phase === 'drafting' ? 'stop' : undefined;
    },
  });
  if (!before.stopped) throw new Error(`the session did not reach drafting on node 1 (${before.status} ${before.error ?? ''}: ${seen.map((e) => e.type).join(',')})`);

  const killedAt = performance.now();
  await g1.kill('SIGKILL');
  let nextEventMs: number | null = null;
  let nextEventType: string | null = null;
  let reconnects = 0;
  let error: string | null = null;
  const follow = (async () => {
    const deadline = killedAt + Math.max(30_000, 10 * s.leaseMs);
    while (performance.now() < deadline) {
      const last = seen.at(-1)?.seq ?? 0;
      reconnects++;
      const result = await followSession(g2.url, id, account.token, last, {
        timeoutMs: s.timeoutMs,
        onEvent: (event) => {
          if (nextEventMs === null) {
            nextEventMs = round(performance.now() - killedAt, 1);
            nextEventType = event.type;
          }
          seen.push(event);
        },
      });
      if (result.status === 200 && result.ended && ['completed', 'failed', 'cancelled', 'expired'].includes(seen.at(-1)?.type ?? '')) return;
      await sleep(100);
    }
    error = 'the session did not end on node 2 in time';
  })();
  const watched = await watchTakeover(g2, g1.id, id, killedAt, follow);
  await follow;
  const state = await callJson(g2.url, 'GET', `/v1/chat/sessions/${id}`, account.token).catch(() => null);
  const seqs = seen.map((event) => event.seq);
  return {
    nextEventMs,
    nextEventType,
    ...watched,
    finalState: (state?.body?.state as string | undefined) ?? null,
    gapFree: seqs.every((seq, i) => seq === i + 1),
    reconnects,
    error,
  };
}

/**
 * Starts a node of the cluster. A node that is fenced while it boots (the others heard no
 * heartbeat for a lease: on a loaded machine its start-up can hold its event loop that long after
 * it joined) exits with code 3; it is started again, as an operator's supervisor would, up to 3 tries.
 */
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
async function measureThreeNodes(s: ClusterSettings): Promise<{ crossNode: CrossNodeReport; takeover: TakeoverReport }> {
  const root = benchRoot('svc-bench-cluster-3-');
  let nats: NatsUnderTest | null = null;
  const nodes: GatewayProcess[] = [];
  try {
    s.onStep?.('cluster: starting 3 nats-servers (JetStream cluster) and 3 gateway nodes');
    nats = await startNatsCluster(3);
    const adminKey = newAdminKey();
    const env = { SVC_NATS_URL: nats.urls.join(','), SVC_BLOB_DIR: join(root.path, 'blobs'), SVC_CLUSTER_LEASE_MS: String(s.leaseMs), SVC_DRAIN_MS: '1000' };
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
        runs.push({ nextEventMs: null, nextEventType: null, downMs: null, movedMs: null, movedTo: null, finalState: null, gapFree: false, reconnects: 0, error: err instanceof Error ? err.message : String(err) });
      }
    }
    return {
      crossNode,
      takeover: {
        leaseMs: s.leaseMs,
        fencedExits: nodes.reduce((sum, node) => sum + node.fencedExits, 0),
        runs,
        median: { nextEventMs: median(runs.map((r) => r.nextEventMs)), downMs: median(runs.map((r) => r.downMs)), movedMs: median(runs.map((r) => r.movedMs)) },
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
    settings: { connections: s.connections, durationS: s.durationMs / 1000, warmupS: s.warmupMs / 1000, crossSessions: s.crossSessions, crossLanes: s.crossLanes, takeovers: s.takeovers, leaseMs: s.leaseMs },
    oneNode: { chat: compare(single.chat, cluster.chat), sessions: compare(single.sessions, cluster.sessions) },
    crossNode: three.crossNode,
    takeover: three.takeover,
    loadAverage: { start: round(start), end: round(loadavg()[0] ?? 0) },
  };
}
