// What the inspector and the metrics cost, from one run: short sessions (spawn, two transitions,
// all persisted) with the inspector off, attached with nobody watching, and with one viewer of the
// live list; then the per-request metrics accounting and a scrape with every actor live.
import { ActorInspector } from '../../runtime/host/actor-inspector.js';
import { systemClock } from '../../runtime/clock.js';
import { Metrics } from '../../runtime/metrics.js';
import { hostMetricSources } from '../../http/inspection.js';
import { sseEvent } from '../../protocols/sse.js';
import { BENCH_MACHINE } from './bench-machine.js';
import { openBenchHost, type BenchHost } from './bench-host.js';
import { measure, type HostFigure, type Operation } from './measure.js';

/** Settings of the inspection-cost figures. */
export interface InspectionCostSettings {
  timeMs: number;
  /** Sessions run at once. */
  parallel: number;
}

type Mode = 'off' | 'attached' | 'viewer';

function metricsOver(bench: BenchHost): Metrics {
  const { host } = bench;
  return new Metrics({
    ...hostMetricSources(host),
    sseStreams: () => 0,
    realtimeCalls: () => 0,
  });
}

async function sessions(
  settings: InspectionCostSettings,
  mode: Mode,
  name: string,
  options: { baseline?: boolean } = {},
): Promise<HostFigure> {
  // Off: the host keeps no step history and nothing observes it. Attached: the product with the
  // admin key set (step history written with every commit, inspector and metrics built). Viewer:
  // plus one client of /admin/v1/actors/stream, each transition encoded as its SSE text.
  const bench = openBenchHost({ history: mode !== 'off' });
  const metrics = mode === 'off' ? null : metricsOver(bench);
  const inspector = mode === 'off' ? null : new ActorInspector(bench.host, systemClock);
  let encoded = 0;
  const stop =
    mode === 'viewer'
      ? inspector!.watchList((summary, done) => void (encoded += sseEvent('actor', 1, { ...summary, done }).length))
      : null;
  let next = 0;
  const op: Operation = async () => {
    const id = `s${next++}`;
    await bench.host.spawn(BENCH_MACHINE, { id, ownerId: 'bench', input: { start: 0 } });
    await bench.host.send(id, { type: 'INC' });
    await bench.host.send(id, { type: 'INC' });
    return 1;
  };
  try {
    return await measure(
      {
        group: 'inspection cost: short sessions (spawn + 2 transitions, persisted)',
        unit: 'sessions',
        name,
        baseline: options.baseline ?? mode === 'off',
        short: 'inspector off',
        note: mode === 'viewer' ? `${(encoded / 1e6).toFixed(1)} MB of SSE encoded` : undefined,
      },
      op,
      { timeMs: settings.timeMs, warmupMs: Math.min(200, settings.timeMs / 4), concurrency: settings.parallel },
    );
  } finally {
    stop?.();
    metrics?.close();
    await bench.close();
  }
}

async function metricsFigures(settings: InspectionCostSettings): Promise<HostFigure[]> {
  const group = 'metrics cost: per request';
  const scrapeGroup = 'metrics cost: one scrape';
  const bench = openBenchHost();
  const metrics = metricsOver(bench);
  try {
    const routes = ['/v1/chat/completions', '/v1/chat/sessions/:session_id', '/v1/files'];
    let i = 0;
    const record = await measure(
      { group, unit: 'requests', name: 'Metrics.request (counter + latency histogram), per request' },
      () => {
        metrics.request(routes[i++ % 3]!, 'POST', 200, 0.0004);
        return 1;
      },
      { timeMs: settings.timeMs, warmupMs: 50, concurrency: 1 },
    );
    const counts = new Map<string, number>();
    const bare = await measure(
      {
        group,
        unit: 'requests',
        baseline: true,
        short: 'a Map counter',
        name: 'baseline: one hand-rolled Map counter increment per request',
      },
      () => {
        const key = `${routes[i++ % 3]!} POST 200`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
        return 1;
      },
      { timeMs: settings.timeMs, warmupMs: 50, concurrency: 1 },
    );
    await Promise.all(
      Array.from({ length: 10_000 }, (_, n) =>
        bench.host.spawn(BENCH_MACHINE, { id: `m${n}`, ownerId: 'bench', input: { start: 0 } }),
      ),
    );
    const scrape = await measure(
      { group: scrapeGroup, unit: 'scrapes', name: 'GET /metrics text with 10,000 live actors (one scrape)' },
      async () => {
        await metrics.text();
        return 1;
      },
      { timeMs: settings.timeMs, warmupMs: 50, concurrency: 1 },
    );
    const walk = await measure(
      {
        group: scrapeGroup,
        unit: 'scrapes',
        baseline: true,
        short: 'a bare walk',
        name: 'baseline: walking the 10,000 live records, nothing formatted',
      },
      () => {
        let n = 0;
        for (const live of bench.host.liveRecords()) n += live.nextSeq;
        return n >= 0 ? 1 : 0;
      },
      { timeMs: settings.timeMs, warmupMs: 50, concurrency: 1 },
    );
    return [record, bare, scrape, walk];
  } finally {
    metrics.close();
    await bench.close();
  }
}

/** The inspection and metrics cost figures. */
export async function runInspectionCost(settings: InspectionCostSettings): Promise<HostFigure[]> {
  const p = settings.parallel;
  // A short unreported run first, so the first reported row does not pay for the warm-up.
  await sessions({ ...settings, timeMs: Math.min(300, settings.timeMs) }, 'off', 'warm-up');
  return [
    await sessions(settings, 'off', `inspector off (no step history, nothing observing), ${p} at once`),
    await sessions(settings, 'attached', `inspector attached, nobody watching (step history persisted), ${p} at once`),
    await sessions(settings, 'viewer', `inspector attached, one viewer of the live list, ${p} at once`),
    // The same as the first row, run last: how much of the difference is the order and the machine.
    await sessions(settings, 'off', `inspector off again, run after the others (order check), ${p} at once`, {
      baseline: false,
    }),
    ...(await metricsFigures(settings)),
  ];
}
