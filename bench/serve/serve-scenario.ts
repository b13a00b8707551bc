import { startGateway, type ServerUnderTest } from '../load/servers.js';
import { ClientThreads } from './client-threads.js';
import { seededRandom } from './prompt-source.js';
import { promptsOf, targetOf } from './serve-target.js';
import { runPoint, type ClientLoad, type PointProgress } from './run-point.js';
import { pointFigures, type PointFigures } from './serve-figures.js';
import type { ServeOptions } from './serve-options.js';
import { sampleServer, type ServerSample } from './server-series.js';
import { timeRequest, type RequestTiming } from './stream-request.js';

/** The scenario's name on the command line. */
export const SERVE_SCENARIO = 'serve';

/** Past this share of its event loop busy, the client's own delay enters what it times. */
export const CLIENT_BUSY_WARNING = 0.8;

/** The sim's pacing when the bench starts our gateway itself: an answer that streams like a model. */
export const LOCAL_SIM = { ttftMs: 50, tokensPerSecond: 200 };

/** One sweep point: its load, figures, the client's own load and every request's timings. */
export interface ServePoint {
  /** The concurrency or the request rate of this point. */
  x: number;
  figures: PointFigures;
  client: ClientLoad;
  /** Server CPU (mean over the point) and peak RSS, when the server runs locally. */
  server: { cpuPercent: number; rssMbMax: number } | null;
  warnings: string[];
  timings: RequestTiming[];
}

/** A whole `serve` run: what was asked for and every point. */
export interface ServeReport {
  scenario: typeof SERVE_SCENARIO;
  when: string;
  target: string;
  /** `local sim gateway` when the bench started our server, else `external`. */
  server: 'local sim gateway' | 'local' | 'external';
  options: Omit<ServeOptions, 'token' | 'url'>;
  points: ServePoint[];
  /** The server's CPU and RSS over the sweep (local servers only), with where each point began. */
  serverSeries: { samples: ServerSample[]; pointStartsS: number[] } | null;
  warnings: string[];
}

/** Requests per point when neither `--requests` nor `--duration` is given. */
export function defaultRequests(mode: ServeOptions['mode'], x: number): number {
  return Math.max(32, Math.ceil(mode === 'concurrency' ? 8 * x : 10 * x));
}

/**
 * Runs a sweep against `options.url` (or, when `local` is given, a server this process started
 * and can sample), one point after the other on fresh counters.
 */
export async function runServeSweep(
  options: ServeOptions,
  extra: {
    local?: { pid: number | 'self'; kind: 'local sim gateway' | 'local' };
    onProgress?: (progress: PointProgress) => void;
    onStep?: (text: string) => void;
  } = {},
): Promise<ServeReport> {
  const random = seededRandom(options.seed ^ 0x5eed);
  const prompts = promptsOf(options);
  const target = targetOf(options);
  const sampler = extra.local ? sampleServer(extra.local.pid) : null;
  const sweepStart = performance.now();
  const points: ServePoint[] = [];
  const pointStartsS: number[] = [];
  const warnings: string[] = [];
  let used = 0;
  let threads: ClientThreads | null = null;
  try {
    // As vLLM's initial test run: a wrong token, model or URL stops here with the server's answer.
    for (; used < options.warmupRequests; used++) {
      const probe = await timeRequest(target, prompts(used), used, performance.now());
      if (probe.error) throw new Error(`the warm-up request failed (${probe.error}): ${probe.detail ?? ''}`);
    }
    if (options.clientThreads > 1) threads = await ClientThreads.start(options, options.clientThreads);
    for (const x of options.points) {
      const label = options.mode === 'concurrency' ? `concurrency ${x}` : `rate ${x}/s`;
      extra.onStep?.(`serve: ${label}`);
      const requests = options.requests ?? (options.durationMs === null ? defaultRequests(options.mode, x) : null);
      pointStartsS.push(Math.round(performance.now() - sweepStart) / 1000);
      // A reading at each point's start and end, so even a point shorter than the interval has its own.
      sampler?.take();
      const before = sampler?.samples.length ?? 0;
      const load = {
        ...(options.mode === 'concurrency' ? { concurrency: x } : { rate: x }),
        burstiness: options.burstiness,
        maxConcurrency: options.maxConcurrency,
        requests,
        durationMs: options.durationMs,
      };
      const progress = extra.onProgress && { onProgress: extra.onProgress };
      const run = threads
        ? await threads.runPoint({ label, load, firstIndex: used, ...progress })
        : await runPoint({ label, target, prompts, firstIndex: used, load: { ...load, random }, ...progress });
      used = Math.max(used, ...run.timings.map((t) => t.index + 1));
      sampler?.take();
      const pointWarnings: string[] = [];
      if (run.client.eventLoopUtilization > CLIENT_BUSY_WARNING)
        pointWarnings.push(
          `${label}: the client's event loop was ${Math.round(run.client.eventLoopUtilization * 100)} % busy: its own delay is in these timings (more --client-threads, the client on another machine, or less load)`,
        );
      const figures = pointFigures(run.timings, options.slo);
      if (figures.completed === 0) pointWarnings.push(`${label}: no request completed`);
      warnings.push(...pointWarnings);
      const during = sampler?.samples.slice(before) ?? [];
      points.push({
        x,
        figures,
        client: run.client,
        server:
          during.length > 0
            ? {
                cpuPercent: Math.round((during.reduce((s, r) => s + r.cpuPercent, 0) / during.length) * 10) / 10,
                rssMbMax: Math.max(...during.map((r) => r.rssMb)),
              }
            : null,
        warnings: pointWarnings,
        timings: run.timings,
      });
    }
  } finally {
    await threads?.close();
    await target.dispatcher.close();
  }
  const asked: Partial<ServeOptions> = { ...options };
  delete asked.token; // the report never holds the secret
  delete asked.url;
  return {
    scenario: SERVE_SCENARIO,
    when: new Date().toISOString(),
    target: options.url,
    server: extra.local?.kind ?? 'external',
    options: asked as Omit<ServeOptions, 'token' | 'url'>,
    points,
    serverSeries: sampler ? { samples: sampler.stop(), pointStartsS } : null,
    warnings,
  };
}

/** Starts our gateway on the paced sim as a child process (see {@link LOCAL_SIM}) for a sweep without `--target`. */
export function startLocalSimGateway(inProcess: boolean): Promise<ServerUnderTest> {
  return startGateway({
    inProcess,
    env: { SVC_SIM_TTFT_MS: String(LOCAL_SIM.ttftMs), SVC_SIM_TOKENS_PER_S: String(LOCAL_SIM.tokensPerSecond) },
  });
}
