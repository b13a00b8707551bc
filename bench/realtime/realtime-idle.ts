// The realtime-idle scenario: N calls opened and held doing nothing, against the gateway and a bare
// uWS WebSocket server, with the same client (worker threads on the `ws` package). What a call
// costs the server at rest (RSS per call), how fast calls open, and whether every call still
// answers at the end (one session.update each).
import { setTimeout as sleep } from 'node:timers/promises';
import { Histogram, type LatencySummary } from '../load/histogram.js';
import type { ServerResources } from '../load/process-sampler.js';
import { measureOursThenBaseline, type ServerUnderTest } from '../load/servers.js';
import { ErrorTally } from './error-tally.js';
import type { IdleStats } from './idle-client.js';
import { assertFilesFor } from './open-files-limit.js';
import { startRealtimeWorkers } from './realtime-workers.js';
import { mb, serverRss, serverSampler, shares } from './server-readings.js';
import type { ThreadLoad } from './thread-meter.js';

/** The scenario's name on the command line. */
export const IDLE_SCENARIO = 'realtime-idle';

/** Settings of realtime-idle. */
export interface IdleSettings {
  calls: number;
  /** How long every call is held open before the pings. */
  holdMs: number;
  /** Calls being opened at once (over all client threads). */
  concurrency: number;
  callTimeoutMs: number;
  pingTimeoutMs: number;
  clientThreads: number;
  inProcess: boolean;
  target: { url: string; token: string } | null;
  /** Also run the bare uWS baseline (default true). */
  baseline?: boolean;
  /** Told what is happening (phases, progress while opening). */
  onStep?: (text: string) => void;
}

/** One target's idle calls. */
export interface IdleRow {
  name: string;
  role: 'ours' | 'baseline';
  calls: number;
  opened: number;
  connectMs: LatencySummary;
  ticketMs: LatencySummary | null;
  openSeconds: number;
  openedPerSecond: number;
  /** Calls still open at the end of the hold, and those of them that answered the ping. */
  stillOpen: number;
  answered: number;
  pingMs: LatencySummary;
  server: {
    rssMbBefore: number;
    rssMbOpened: number;
    rssMbHeldMax: number;
    rssKbPerCall: number;
    whileHeld: ServerResources | null;
  } | null;
  errors: Record<string, number>;
  errorSamples: Record<string, string>;
  /** Each client thread while opening. */
  clientWhileOpening: ThreadLoad[];
}

/** What realtime-idle measured. */
export interface IdleReport {
  scenario: typeof IDLE_SCENARIO;
  settings: Omit<IdleSettings, 'target' | 'onStep'> & { target: string | null };
  rows: IdleRow[];
}

function merge(name: string, role: IdleRow['role'], all: IdleStats[]): Omit<IdleRow, 'server'> {
  const connect = new Histogram();
  const tickets = new Histogram();
  const ping = new Histogram();
  const errors = new ErrorTally();
  for (const stats of all) {
    connect.merge(stats.connectMs);
    tickets.merge(stats.ticketMs);
    ping.merge(stats.pingMs);
    errors.merge(stats.errors);
  }
  const sum = (pick: (stats: IdleStats) => number) => all.reduce((total, stats) => total + pick(stats), 0);
  const openSeconds = Math.max(...all.map((stats) => stats.openWindowMs)) / 1000;
  return {
    name,
    role,
    calls: sum((s) => s.calls),
    opened: sum((s) => s.opened),
    connectMs: connect.summary(),
    ticketMs: tickets.data.count ? tickets.summary() : null,
    openSeconds: Math.round(openSeconds * 10) / 10,
    openedPerSecond: Math.round(sum((s) => s.opened) / Math.max(0.001, openSeconds)),
    stillOpen: sum((s) => s.stillOpen),
    answered: sum((s) => s.answered),
    pingMs: ping.summary(),
    errors: errors.data.counts,
    errorSamples: errors.data.samples,
    clientWhileOpening: all.map((stats) => stats.clientWhileOpening),
  };
}

/** Opens the calls on `server`, holds them, pings them, and reads the server's memory on the way. */
async function measure(
  server: ServerUnderTest,
  name: string,
  role: IdleRow['role'],
  s: IdleSettings,
): Promise<IdleRow> {
  const step = (text: string) => s.onStep?.(`${IDLE_SCENARIO}: ${name}: ${text}`);
  const before = serverRss(server);
  const callTimeoutMs = s.callTimeoutMs;
  const openDeadlineMs = Math.max(60_000, s.calls * 20);
  const parts = shares(s.calls, s.clientThreads);
  const target = { url: server.url, token: server.token };
  const opening = new Map<number, number>();
  let lastPrint = 0;
  const workers = startRealtimeWorkers<IdleStats>(
    parts.map((part) => ({
      kind: 'idle' as const,
      options: {
        target,
        calls: part.count,
        concurrency: Math.max(1, Math.round(s.concurrency / parts.length)),
        callTimeoutMs,
        openDeadlineMs,
        pingTimeoutMs: s.pingTimeoutMs,
      },
    })),
    openDeadlineMs + callTimeoutMs + s.holdMs + s.pingTimeoutMs + 60_000,
    (worker, report) => {
      if (report.phase !== 'opening') return;
      opening.set(worker, report.data.opened ?? 0);
      if (performance.now() - lastPrint < 5000) return;
      lastPrint = performance.now();
      step(
        `${[...opening.values()].reduce((a, b) => a + b, 0).toLocaleString('en-US')} / ${s.calls.toLocaleString('en-US')} calls open`,
      );
    },
  );
  try {
    const opened = await workers.reached('opened');
    const count = opened.reduce((total, report) => total + (report.data.opened ?? 0), 0);
    step(`${count.toLocaleString('en-US')} calls open; holding ${s.holdMs / 1000} s`);
    const atOpened = serverRss(server);
    const sampler = serverSampler(server);
    sampler?.start();
    await sleep(s.holdMs);
    const whileHeld = sampler?.stop() ?? null;
    workers.command('ping');
    const row = merge(name, role, await workers.results);
    const heldMax = Math.max(whileHeld ? whileHeld.rssMbMax * 1024 ** 2 : 0, atOpened ?? 0);
    return {
      ...row,
      server:
        before === null || atOpened === null
          ? null
          : {
              rssMbBefore: mb(before),
              rssMbOpened: mb(atOpened),
              rssMbHeldMax: mb(heldMax),
              rssKbPerCall: row.opened ? Math.round(((heldMax - before) / 1024 / row.opened) * 10) / 10 : 0,
              whileHeld,
            },
    };
  } finally {
    workers.stop();
  }
}

/** Runs realtime-idle on the gateway (or --target), then on the bare uWS baseline. */
export async function runRealtimeIdle(s: IdleSettings): Promise<IdleReport> {
  assertFilesFor(s.calls, IDLE_SCENARIO);
  const rows = await measureOursThenBaseline(
    {
      target: s.target,
      inProcess: s.inProcess,
      baseline: s.baseline !== false ? { server: { kind: 'uws-ws-idle' }, name: 'bare uWS WebSocket' } : null,
    },
    (server, rowName, role) => measure(server, rowName, role, s),
  );
  const settings = {
    calls: s.calls,
    holdMs: s.holdMs,
    concurrency: s.concurrency,
    callTimeoutMs: s.callTimeoutMs,
    pingTimeoutMs: s.pingTimeoutMs,
    clientThreads: s.clientThreads,
    inProcess: s.inProcess,
    baseline: s.baseline !== false,
  };
  return { scenario: IDLE_SCENARIO, settings: { ...settings, target: s.target?.url ?? null }, rows };
}
