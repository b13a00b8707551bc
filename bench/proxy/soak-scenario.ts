// The soak scenario (issue 14): does the gateway's memory stay flat? 200,000 non-streaming
// requests through the proxy path (instant upstream, auth, holds and billing on, cache off) in
// slices of 10,000, reading the gateway's RSS after each slice, then again after the load stops.
// Minutes long, so never part of `npm run bench`'s default set: ask for it with --scenario soak.
import { statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { UNIQUE_MARKER } from '../load/load-client.js';
import { readMemorySplit } from '../load/memory-split.js';
import { runLoadInWorker } from '../load/run-in-worker.js';
import { spawnServer, startGateway } from '../load/servers.js';

/** Settings of the soak scenario. */
export interface SoakSettings {
  requests: number;
  slice: number;
  connections: number;
  /** How long the gateway is left idle after the load before the last reading. */
  restMs: number;
  timeoutMs: number;
  onStep?: (text: string) => void;
}

/** One reading: requests served so far, the gateway's memory (MiB) then and the store's file size. */
export interface SoakReading {
  requests: number;
  rssMb: number;
  /** Anonymous memory (the heap, native allocations): RssAnon of /proc/<pid>/status. */
  anonMb: number;
  /** File-backed pages mapped (the binary, libraries, LMDB's map): RssFile. */
  fileMb: number;
  /** Size of the LMDB data file. */
  lmdbMb: number;
  requestsPerSecond: number;
  errors: number;
}

/** What the soak scenario measured. */
export interface SoakReport {
  scenario: 'soak';
  settings: { requests: number; slice: number; connections: number; restS: number };
  readings: SoakReading[];
  /** The reading after the gateway rested (requests: all served). */
  rested: SoakReading;
  loadAverage: number;
}

/** The budget of issue 28: RSS at most this over the whole soak. */
export const SOAK_RSS_BUDGET_MB = 250;
/** "No growth trend": RSS over the second half rises by less than this per 100,000 requests. */
export const SOAK_TREND_LIMIT_MB = 5;

const round1 = (n: number) => Math.round(n * 10) / 10;

function lmdbFileMb(dataDir: string | undefined): number {
  if (!dataDir) return 0;
  try {
    return round1(statSync(join(dataDir, 'lmdb', 'data.mdb')).size / 1024 ** 2);
  } catch {
    return 0;
  }
}

function reading(pid: number, dataDir: string | undefined, requests: number, rps: number, errors: number): SoakReading {
  const split = readMemorySplit(pid);
  return {
    requests,
    rssMb: round1(split.rssMb),
    anonMb: round1(split.anonMb),
    fileMb: round1(split.fileMb),
    lmdbMb: lmdbFileMb(dataDir),
    requestsPerSecond: rps,
    errors,
  };
}

/** Least-squares slope of RSS over the second half of the run, in MiB per 100,000 requests. */
export function secondHalfSlope(
  readings: readonly SoakReading[],
  field: 'rssMb' | 'anonMb' | 'fileMb' | 'lmdbMb' = 'rssMb',
): number {
  const last = readings.at(-1)?.requests ?? 0;
  const half = readings.filter((r) => r.requests >= last / 2);
  if (half.length < 2) return 0;
  const mx = half.reduce((sum, r) => sum + r.requests, 0) / half.length;
  const my = half.reduce((sum, r) => sum + r[field], 0) / half.length;
  let num = 0;
  let den = 0;
  for (const r of half) {
    num += (r.requests - mx) * (r[field] - my);
    den += (r.requests - mx) ** 2;
  }
  return den === 0 ? 0 : round1((num / den) * 100_000);
}

/** Runs the soak: one upstream, one gateway (child processes), slice after slice of load. */
export async function runSoakScenario(settings: SoakSettings): Promise<SoakReport> {
  const upstream = await spawnServer('bench/proxy/instant-upstream-main.ts', {}, /upstream listening on (\d+)/);
  const gateway = await startGateway({
    env: {
      SVC_BACKEND: 'openai-compatible',
      SVC_UPSTREAM_BASE_URL: `http://127.0.0.1:${upstream.port}/v1`,
      SVC_UPSTREAM_MODEL: 'instant',
      SVC_UPSTREAM_API_KEY: 'sk-bench-upstream',
      SVC_CHAT_CACHE_TTL_S: '0',
    },
  });
  const pid = gateway.sample;
  if (typeof pid !== 'number')
    throw new Error('the soak reads the gateway process from /proc: it must run as a child process');
  const body = JSON.stringify({
    model: 'pro-1',
    messages: [{ role: 'user', content: `Soak probe ${UNIQUE_MARKER}` }],
    max_tokens: 64,
  });
  const readings: SoakReading[] = [reading(pid, gateway.dataDir, 0, 0, 0)];
  let served = 0;
  try {
    while (served < settings.requests) {
      const slice = Math.min(settings.slice, settings.requests - served);
      const stats = await runLoadInWorker(
        {
          url: `${gateway.url}/v1/chat/completions`,
          headers: { authorization: `Bearer ${gateway.token}` },
          body,
          mode: 'json',
          connections: settings.connections,
          durationMs: 3_600_000,
          warmupMs: 0,
          rate: null,
          maxRequests: slice,
          timeoutMs: settings.timeoutMs,
        },
        () => {},
      );
      served += stats.requests;
      const errors = Object.values(stats.errors).reduce((sum, n) => sum + n, 0);
      const now = reading(pid, gateway.dataDir, served, Math.round((stats.requests / stats.windowMs) * 1000), errors);
      readings.push(now);
      settings.onStep?.(
        `soak: ${served.toLocaleString('en-US')} requests, RSS ${now.rssMb} MiB (anon ${now.anonMb}, file ${now.fileMb}), LMDB ${now.lmdbMb} MB`,
      );
      if (stats.requests === 0)
        throw new Error(`the gateway served nothing in a slice (errors ${JSON.stringify(stats.errors)})`);
    }
    await sleep(settings.restMs);
    return {
      scenario: 'soak',
      settings: {
        requests: settings.requests,
        slice: settings.slice,
        connections: settings.connections,
        restS: settings.restMs / 1000,
      },
      readings,
      rested: reading(pid, gateway.dataDir, served, 0, 0),
      loadAverage: loadavg()[0] ?? 0,
    };
  } finally {
    await gateway.close();
    await upstream.stop();
  }
}

/** The soak report as Markdown, with the targets beside the figures. */
export function formatSoak(report: SoakReport): string {
  const { readings, rested } = report;
  const peak = Math.max(...readings.map((r) => r.rssMb), rested.rssMb);
  const slope = secondHalfSlope(readings);
  const rows = readings.filter(
    (_, i, all) => i === 0 || i === all.length - 1 || i % Math.max(1, Math.floor(all.length / 10)) === 0,
  );
  const row = (label: string, r: SoakReading, rps: string, errors: string) =>
    `| ${label} | ${r.rssMb} | ${r.anonMb} | ${r.fileMb} | ${r.lmdbMb} | ${rps} | ${errors} |`;
  const errors = readings.reduce((sum, r) => sum + r.errors, 0);
  const budgetMet = peak <= SOAK_RSS_BUDGET_MB;
  const flat = slope < SOAK_TREND_LIMIT_MB;
  const anonSlope = secondHalfSlope(readings, 'anonMb');
  const last = readings.at(-1)!;
  // Where the trend, if it goes on, crosses the budget (the store keeps growing with its data).
  const crossing =
    slope > 0 && last.rssMb < SOAK_RSS_BUDGET_MB
      ? `about ${Math.round((last.requests + ((SOAK_RSS_BUDGET_MB - last.rssMb) / slope) * 100_000) / 1000).toLocaleString('en-US')}k requests`
      : '–';
  return [
    `### soak: ${report.settings.requests.toLocaleString('en-US')} non-streaming requests through the proxy path, ${report.settings.connections} connections (load average ${report.loadAverage.toFixed(2)})`,
    '',
    '| requests served | RSS MiB | anon MiB | file MiB | LMDB file MB | slice req/s | slice errors |',
    '|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) =>
      row(r.requests.toLocaleString('en-US'), r, r.requestsPerSecond.toLocaleString('en-US'), String(r.errors)),
    ),
    row(`rested ${report.settings.restS} s`, rested, '–', '–'),
    '',
    '| figure | measured | target |',
    '|---|---|---|',
    `| RSS peak (every slice and the rested reading) | ${peak} MiB | ≤ ${SOAK_RSS_BUDGET_MB} MiB (${budgetMet ? 'met' : 'missed'}) |`,
    `| RSS trend over the second half (least squares) | ${slope} MiB per 100k requests | < ${SOAK_TREND_LIMIT_MB} (${flat ? 'met' : 'missed'}) |`,
    `| of which anonymous (heap, native: what a request would leave behind) | ${anonSlope} MiB per 100k | < ${SOAK_TREND_LIMIT_MB} (${anonSlope < SOAK_TREND_LIMIT_MB ? 'met' : 'missed'}) |`,
    `| of which file-backed (LMDB's map), beside the LMDB file's own growth | ${secondHalfSlope(readings, 'fileMb')} MiB per 100k (file ${secondHalfSlope(readings, 'lmdbMb')} MB per 100k) | – |`,
    `| the trend reaches ${SOAK_RSS_BUDGET_MB} MiB at | ${crossing} | – |`,
    `| RSS after resting | ${rested.rssMb} MiB (peak ${peak}) | ≤ peak (${rested.rssMb <= peak ? 'met' : 'missed'}) |`,
    `| errors | ${errors} | 0 (${errors === 0 ? 'met' : 'missed'}) |`,
    '',
    `Verdict: ${budgetMet && flat && errors === 0 ? 'PASS' : 'FAIL'} (≤ ${SOAK_RSS_BUDGET_MB} MiB over the whole soak, no growth trend, no errors).`,
    '',
  ].join('\n');
}
