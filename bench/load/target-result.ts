import { Histogram, type LatencySummary } from './histogram.js';
import type { LoadStats } from './load-client.js';
import type { ServerResources } from './process-sampler.js';

/** One row of a scenario: a server under load (ours or a baseline) and what was measured. */
export interface TargetResult {
  name: string;
  role: 'ours' | 'baseline';
  /** `not-served`: the route answered that it does not do this yet; `failed`: nothing succeeded. */
  status: 'ok' | 'not-served' | 'failed';
  note: string | null;
  requests: number;
  requestsPerSecond: number;
  windowMs: number;
  errors: Record<string, number>;
  errorSamples: Record<string, string>;
  /** Request sent to last byte (for SSE: time to last byte). */
  latencyMs: LatencySummary;
  sse: {
    ttfbMs: LatencySummary;
    gapMs: LatencySummary;
    eventsPerStream: { min: number; mean: number; max: number };
  } | null;
  server: ServerResources | null;
  client: LoadStats['client'];
  /** The host's 1-minute load average when the run ended (the machine may be shared). */
  hostLoad1m: number | null;
  /** Requests per second of every round, when the scenario ran more than one (the row is the median round). */
  roundsRps?: number[];
}

const EMPTY: LatencySummary = { count: 0, mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 };

/** Turns a load run's raw statistics into a row. */
export function toTargetResult(
  name: string,
  role: TargetResult['role'],
  stats: LoadStats,
  server: ServerResources | null,
  hostLoad1m: number,
): TargetResult {
  const seconds = Math.max(0.001, stats.windowMs / 1000);
  const failed = stats.requests === 0;
  const firstError = Object.entries(stats.errorSamples)[0];
  return {
    name,
    role,
    status: failed ? 'failed' : 'ok',
    note: failed ? (firstError ? `${firstError[0]}: ${firstError[1]}` : 'no request completed') : null,
    requests: stats.requests,
    requestsPerSecond: Math.round(stats.requests / seconds),
    windowMs: stats.windowMs,
    errors: stats.errors,
    errorSamples: stats.errorSamples,
    latencyMs: new Histogram(stats.latency).summary(),
    sse: stats.sse
      ? {
          ttfbMs: new Histogram(stats.sse.ttfb).summary(),
          gapMs: new Histogram(stats.sse.gaps).summary(),
          eventsPerStream: {
            min: stats.sse.eventsMin,
            mean: stats.requests ? Math.round((stats.sse.eventsTotal / stats.requests) * 10) / 10 : 0,
            max: stats.sse.eventsMax,
          },
        }
      : null,
    server,
    client: stats.client,
    hostLoad1m: Math.round(hostLoad1m * 100) / 100,
  };
}

/** A row for a target that was not loaded, with the reason. */
export function skippedResult(
  name: string,
  role: TargetResult['role'],
  status: 'not-served' | 'failed',
  note: string,
): TargetResult {
  return {
    name,
    role,
    status,
    note,
    requests: 0,
    requestsPerSecond: 0,
    windowMs: 0,
    errors: {},
    errorSamples: {},
    latencyMs: EMPTY,
    sse: null,
    server: null,
    client: { cpuPercent: null, eventLoopUtilization: 0 },
    hostLoad1m: null,
  };
}

/** The median round by requests per second, carrying every round's figure. */
export function medianRound(rounds: TargetResult[]): TargetResult {
  const sorted = [...rounds].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
  return rounds.length > 1 ? { ...median, roundsRps: rounds.map((r) => r.requestsPerSecond) } : median;
}
