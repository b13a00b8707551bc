// The session-fanout scenario: one chat session parked in awaiting_approval, N SSE followers on
// GET /v1/chat/sessions/{id}/events?after=-1 (from a worker), then approve, live inputs while it
// runs, cancel. Every follower must get every event in order; delivery latency is receive time −
// the event's `ts`. The baseline is a bare uWS server fanning the same events out to N streams.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FanoutStats } from './fanout-client.js';
import { Histogram, type LatencySummary } from './histogram.js';
import { readProcess, readSelf, ResourceSampler, type ServerResources } from './process-sampler.js';
import { runFanoutInWorker } from './run-fanout-in-worker.js';
import type { LoadSettings } from './scenarios.js';
import { externalTarget, startBaseline, startGateway, type ServerUnderTest } from './servers.js';

/** The scenario's name on the command line. */
export const FANOUT_SCENARIO = 'session-fanout';

/** Settings of the fan-out scenario. */
export interface FanoutSettings {
  followers: number;
  /** Live inputs sent while the followers watch (each commits one `live_input` event). */
  inputs: number;
  inputGapMs: number;
  /** The sim's speed for this session (metadata.sim.tokens_per_s): slow enough to outlast the inputs. */
  tokensPerSecond: number;
  connectTimeoutMs: number;
  timeoutMs: number;
  inProcess: boolean;
  target: LoadSettings['target'];
  /** Also run the bare uWS fan-out baseline (default true). */
  baseline?: boolean;
  /** Rounds, interleaved; each target's median round by delivery p50 is kept (default 1). */
  rounds?: number;
}

/** One target's fan-out: what its followers saw and what they cost the server. */
export interface FanoutRow {
  name: string;
  role: 'ours' | 'baseline';
  followers: number;
  ready: number;
  /** The last seq of the stream (every follower should end there). */
  finalSeq: number;
  /** Every follower got seq 1 … finalSeq, each once, in order, and its stream ended cleanly. */
  complete: boolean;
  liveEvents: number;
  connectMs: LatencySummary;
  latencyMs: LatencySummary;
  eventReachMs: LatencySummary;
  order: FanoutStats['order'];
  errors: Record<string, number>;
  errorSamples: Record<string, string>;
  server: { rssMbBefore: number; rssMbReady: number; rssKbPerFollower: number; during: ServerResources | null } | null;
  client: FanoutStats['client'];
  /** Added to the client's high-resolution clock so it reads as Date.now() does. */
  clockOffsetMs: number;
  deliveryWindowMs: number;
  /** Event types in the stream, in order, run-length encoded (e.g. `live_input×50`). */
  stream: string;
  /** Delivery p50 of every round, when there was more than one (the row is the median round). */
  roundsP50Ms?: number[];
}

/** What the fan-out scenario measured. */
export interface FanoutReport {
  scenario: typeof FANOUT_SCENARIO;
  settings: Omit<FanoutSettings, 'target'> & { target: string | null };
  rows: FanoutRow[];
}

interface StreamEvent {
  seq: number;
  type: string;
  ts: number;
  data: Record<string, unknown>;
}

const mb = (bytes: number) => Math.round((bytes / 1024 ** 2) * 10) / 10;

/** The soft limit on open files of this process (children inherit it). */
function openFilesLimit(): number {
  try {
    const line = /Max open files\s+(\d+|unlimited)/.exec(readFileSync('/proc/self/limits', 'utf8'));
    return line?.[1] === 'unlimited' ? Infinity : Number(line?.[1] ?? Infinity);
  } catch {
    return Infinity;
  }
}

function rssOf(server: ServerUnderTest): number | null {
  if (server.sample === null) return null;
  return (server.sample === 'self' ? readSelf() : readProcess(server.sample))?.rssBytes ?? null;
}

function runLength(types: string[]): string {
  const out: string[] = [];
  for (let i = 0; i < types.length;) {
    let j = i;
    while (j < types.length && types[j] === types[i]) j++;
    out.push(j - i > 1 ? `${types[i]}×${j - i}` : types[i]!);
    i = j;
  }
  return out.join(', ');
}

/** Opens the followers, calls `drive` once all are ready, and turns what they saw into a row. */
async function follow(
  server: ServerUnderTest,
  s: FanoutSettings,
  stream: { name: string; role: FanoutRow['role']; path: string; readySeq: number },
  drive: () => Promise<StreamEvent[]>,
): Promise<FanoutRow> {
  const headers: Record<string, string> = server.token ? { authorization: `Bearer ${server.token}` } : {};
  const before = rssOf(server);
  const run = runFanoutInWorker({
    url: `${server.url}${stream.path}`,
    headers,
    followers: s.followers,
    readySeq: stream.readySeq,
    liveAfter: stream.readySeq,
    connectTimeoutMs: s.connectTimeoutMs,
    timeoutMs: s.timeoutMs,
  });
  const ready = await run.ready;
  const atReady = rssOf(server);
  const sampler = server.sample === null ? null : new ResourceSampler(server.sample === 'self' ? null : server.sample);
  sampler?.start();
  let events: StreamEvent[] = [];
  try {
    // With no follower ready nothing is driven: the worker's timeout ends the run.
    if (ready.ready > 0) events = await drive();
  } catch (err) {
    run.stop();
    sampler?.stop();
    throw err;
  }
  const stats = await run.result;
  const during = sampler?.stop() ?? null;
  const finalSeq = events.at(-1)?.seq ?? 0;
  const o = stats.order;
  const complete =
    stats.ended === s.followers &&
    o.followersWithProblems === 0 &&
    o.firstSeq.min === 1 &&
    o.firstSeq.max === 1 &&
    o.lastSeq.min === finalSeq &&
    o.lastSeq.max === finalSeq;
  return {
    name: stream.name,
    role: stream.role,
    followers: s.followers,
    ready: stats.ready,
    finalSeq,
    complete,
    liveEvents: stats.liveEvents,
    connectMs: new Histogram(stats.connectMs).summary(),
    latencyMs: new Histogram(stats.latency).summary(),
    eventReachMs: new Histogram(stats.eventReach).summary(),
    order: o,
    errors: stats.errors,
    errorSamples: stats.errorSamples,
    server:
      before === null || atReady === null
        ? null
        : {
            rssMbBefore: mb(before),
            rssMbReady: mb(atReady),
            rssKbPerFollower: Math.round(((atReady - before) / 1024 / s.followers) * 10) / 10,
            during,
          },
    client: stats.client,
    clockOffsetMs: stats.clockOffsetMs,
    deliveryWindowMs: stats.deliveryWindowMs,
    stream: runLength(events.map((e) => e.type)),
  };
}

async function api(
  server: ServerUnderTest,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { authorization: `Bearer ${server.token ?? ''}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    return { status: res.status, body: text };
  }
}

/** The gateway: a session parked for approval; followers connect; approve, live inputs, cancel. */
async function runGateway(
  server: ServerUnderTest,
  s: FanoutSettings,
): Promise<{ row: FanoutRow; events: StreamEvent[]; history: number }> {
  const created = await api(server, 'POST', '/v1/chat/sessions', {
    model: 'pro-1',
    messages: [{ role: 'user', content: 'Fan-out bench: plan a short walk by the river.' }],
    max_tokens: 64,
    require_approval: true,
    metadata: { sim: { tokens_per_s: s.tokensPerSecond } },
  });
  if (created.status !== 201)
    throw new Error(
      `${FANOUT_SCENARIO}: creating the session answered ${created.status}: ${JSON.stringify(created.body).slice(0, 300)}`,
    );
  const id = created.body.id as string;
  const history = created.body.next_after as number;
  let events: StreamEvent[] = [];
  const row = await follow(
    server,
    s,
    { name: 'svc gateway', role: 'ours', path: `/v1/chat/sessions/${id}/events?after=-1`, readySeq: history },
    async () => {
      const approved = await api(server, 'POST', `/v1/chat/sessions/${id}/approve`);
      if (approved.status !== 200)
        throw new Error(
          `${FANOUT_SCENARIO}: approve answered ${approved.status}: ${JSON.stringify(approved.body).slice(0, 300)}`,
        );
      for (let i = 0; i < s.inputs; i++) {
        await sleep(s.inputGapMs);
        const sent = await api(server, 'POST', `/v1/chat/sessions/${id}/live-input`, {
          content: `live input ${i + 1}`,
        });
        if (sent.status === 409) break; // the run ended first: slower sim needed for more inputs
        if (sent.status !== 200) throw new Error(`${FANOUT_SCENARIO}: live input answered ${sent.status}`);
      }
      const cancelled = await api(server, 'POST', `/v1/chat/sessions/${id}/cancel`, { reason: 'bench done' });
      if (cancelled.status !== 200 && cancelled.status !== 409)
        throw new Error(`${FANOUT_SCENARIO}: cancel answered ${cancelled.status}`);
      // The ending event is committed once the charge settles; wait for it, then read the whole log.
      for (let tries = 0; tries < 500; tries++) {
        const page = await api(server, 'GET', `/v1/chat/sessions/${id}/events-page?after=-1&limit=1000`);
        events = (page.body.events ?? []) as StreamEvent[];
        if (['cancelled', 'completed', 'failed', 'expired'].includes(events.at(-1)?.type ?? '')) break;
        await sleep(20);
      }
      return events;
    },
  );
  return { row, events, history };
}

/** The bare uWS fan-out: the gateway's live events replayed with the same gaps between commits. */
async function runBare(
  server: ServerUnderTest,
  s: FanoutSettings,
  gatewayEvents: StreamEvent[],
  after: number,
): Promise<FanoutRow> {
  const live = gatewayEvents.filter((e) => e.seq > after);
  const groups: { offset: number; events: { type: string; data: Record<string, unknown> }[] }[] = [];
  for (const event of live) {
    const offset = event.ts - (live[0]?.ts ?? 0);
    const last = groups.at(-1);
    if (last && last.offset === offset) last.events.push({ type: event.type, data: event.data });
    else groups.push({ offset, events: [{ type: event.type, data: event.data }] });
  }
  return follow(server, s, { name: 'bare uWS fan-out', role: 'baseline', path: '/events', readySeq: 0 }, async () => {
    const t0 = performance.now();
    let seq = 0;
    for (const [index, group] of groups.entries()) {
      const wait = t0 + group.offset - performance.now();
      if (wait > 0) await sleep(wait);
      const res = await fetch(`${server.url}/publish`, {
        method: 'POST',
        body: JSON.stringify({ events: group.events, end: index === groups.length - 1 }),
      });
      seq = ((await res.json()) as { seq: number }).seq;
    }
    return live.slice(0, seq).map((e, i) => ({ ...e, seq: i + 1 }));
  });
}

/** One round: the gateway (or --target) with a fresh session, then the bare baseline with the same events. */
async function runRound(s: FanoutSettings): Promise<FanoutRow[]> {
  const started: ServerUnderTest[] = [];
  try {
    const ours = s.target
      ? externalTarget(s.target.url, s.target.token)
      : await startGateway({ inProcess: s.inProcess });
    started.push(ours);
    const gateway = await runGateway(ours, s);
    const rows = [gateway.row];
    await started.pop()!.close();
    if (s.baseline !== false && gateway.events.length > 0) {
      const bare = await startBaseline({ kind: 'uws-fanout', inProcess: s.inProcess });
      started.push(bare);
      rows.push(await runBare(bare, s, gateway.events, gateway.history));
    }
    return rows;
  } finally {
    await Promise.all(started.map((server) => server.close()));
  }
}

/** The median round by delivery p50; complete only if every round was. */
function medianRow(rows: FanoutRow[]): FanoutRow {
  const sorted = [...rows].sort((a, b) => a.latencyMs.p50 - b.latencyMs.p50);
  const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
  if (rows.length === 1) return median;
  return { ...median, complete: rows.every((row) => row.complete), roundsP50Ms: rows.map((row) => row.latencyMs.p50) };
}

/** Runs `rounds` rounds (gateway, baseline, gateway, baseline …) and keeps each target's median round. */
export async function runSessionFanout(s: FanoutSettings): Promise<FanoutReport> {
  const limit = openFilesLimit();
  if (s.followers + 256 > limit)
    throw new Error(
      `${FANOUT_SCENARIO}: ${s.followers} followers need about ${s.followers + 256} open files; the limit here is ${limit} (ulimit -n)`,
    );
  const rounds: FanoutRow[][] = [];
  for (let round = 0; round < Math.max(1, s.rounds ?? 1); round++) rounds.push(await runRound(s));
  const rows = rounds[0]!.map((first) =>
    medianRow(rounds.map((round) => round.find((row) => row.name === first.name) ?? first)),
  );
  const { target, ...rest } = s;
  return { scenario: FANOUT_SCENARIO, settings: { ...rest, target: target?.url ?? null }, rows };
}
