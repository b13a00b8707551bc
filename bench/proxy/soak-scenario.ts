// The soak scenario (issue 14): does the gateway's memory stay flat? 200,000 non-streaming
// requests through the proxy path (instant upstream, auth, holds and billing on, cache off) in
// slices of 10,000, reading the gateway's RSS after each slice, then again after the load stops.
// Minutes long, so never part of `npm run bench`'s default set: ask for it with --scenario soak.
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { UNIQUE_MARKER } from '../load/load-client.js';
import { readProcess } from '../load/process-sampler.js';
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

/** One reading: requests served so far and the gateway's RSS (MiB) then. */
export interface SoakReading {
  requests: number;
  rssMb: number;
  requestsPerSecond: number;
  errors: number;
}

/** What the soak scenario measured. */
export interface SoakReport {
  scenario: 'soak';
  settings: { requests: number; slice: number; connections: number; restS: number };
  readings: SoakReading[];
  /** RSS after the gateway rested. */
  restedRssMb: number;
  loadAverage: number;
}

const rssMb = (pid: number) => Math.round(((readProcess(pid)?.rssBytes ?? 0) / 1024 ** 2) * 10) / 10;

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
  const readings: SoakReading[] = [{ requests: 0, rssMb: rssMb(pid), requestsPerSecond: 0, errors: 0 }];
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
      readings.push({
        requests: served,
        rssMb: rssMb(pid),
        requestsPerSecond: Math.round((stats.requests / stats.windowMs) * 1000),
        errors,
      });
      settings.onStep?.(`soak: ${served.toLocaleString('en-US')} requests, RSS ${readings.at(-1)!.rssMb} MiB`);
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
      restedRssMb: rssMb(pid),
      loadAverage: loadavg()[0] ?? 0,
    };
  } finally {
    await gateway.close();
    await upstream.stop();
  }
}

/** The soak report as Markdown, with the targets beside the figures. */
export function formatSoak(report: SoakReport): string {
  const first = report.readings.find((r) => r.requests >= report.settings.slice) ?? report.readings.at(-1)!;
  const last = report.readings.at(-1)!;
  const peak = Math.max(...report.readings.map((r) => r.rssMb));
  const growth = Math.round((last.rssMb - first.rssMb) * 10) / 10;
  const rows = report.readings.filter(
    (_, i, all) => i === 0 || i === all.length - 1 || i % Math.max(1, Math.floor(all.length / 10)) === 0,
  );
  return [
    `### soak: ${report.settings.requests.toLocaleString('en-US')} non-streaming requests through the proxy path, ${report.settings.connections} connections (load average ${report.loadAverage.toFixed(2)})`,
    '',
    '| requests served | gateway RSS MiB | slice req/s | slice errors |',
    '|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.requests.toLocaleString('en-US')} | ${r.rssMb} | ${r.requestsPerSecond.toLocaleString('en-US')} | ${r.errors} |`,
    ),
    `| rested ${report.settings.restS} s | ${report.restedRssMb} | – | – |`,
    '',
    '| figure | measured | target |',
    '|---|---|---|',
    `| RSS growth from ${first.requests.toLocaleString('en-US')} to ${last.requests.toLocaleString('en-US')} requests | ${growth} MiB | ≤ 50 MiB (${growth <= 50 ? 'met' : 'missed'}) |`,
    `| RSS peak | ${peak} MiB | ≤ 250 MiB (${peak <= 250 ? 'met' : 'missed'}) |`,
    `| RSS after resting | ${report.restedRssMb} MiB (peak ${peak}) | falls back (${report.restedRssMb < peak ? 'met' : 'missed'}) |`,
    '',
  ].join('\n');
}
