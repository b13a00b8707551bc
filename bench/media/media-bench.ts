// The media scenario: images per second (sim, 1024x1024, b64_json) through the gateway beside
// the sim image backend called directly; then video jobs held at once by one gateway process
// (durable actors polling the sim every SVC_VIDEO_POLL_MS) with the memory they take, beside the
// same job machines held by a bare process with no host, persistence, HTTP or billing.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { Pool } from 'undici';
import { createSimImageBackend } from '../../backends/images/sim-image-backend.js';
import { systemClock } from '../../runtime/clock.js';
import { readProcess, readSelf, type ResourceReading } from '../load/process-sampler.js';
import { startGateway, type ServerUnderTest } from '../load/servers.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** Settings of the media scenario. */
export interface MediaBenchSettings {
  /** Image requests in flight, and for how long (ms). */
  concurrency: number;
  durationMs: number;
  /** Video jobs created and held, for how long (ms), polled how often (ms). */
  jobs: number;
  holdMs: number;
  pollMs: number;
  inProcess: boolean;
  target: { url: string; token: string } | null;
  onStep?: (text: string) => void;
}

/** Images: completions per second and latency, ours or the baseline. */
export interface ImageRow {
  role: 'ours' | 'baseline';
  name: string;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

/** Held video jobs: how many, the memory they take, CPU while held. */
export interface JobsRow {
  role: 'ours' | 'baseline';
  name: string;
  jobs: number;
  /** Jobs created per second over HTTP (ours only). */
  createdPerSecond: number | null;
  /** Jobs seen running at the end of the hold (a sample of 100 for ours). */
  runningChecked: string;
  rssMbBefore: number | null;
  rssMbAfter: number | null;
  kbPerJob: number | null;
  cpuPercent: number | null;
  errors: number;
}

/** The scenario's report. */
export interface MediaReport {
  scenario: 'media';
  concurrency: number;
  durationMs: number;
  holdMs: number;
  pollMs: number;
  images: ImageRow[];
  videoJobs: JobsRow[];
}

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;
const mb = (bytes: number) => round(bytes / 1024 ** 2);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

/** Runs `once` in `concurrency` lanes for `durationMs`: completions per second and latency. */
async function lanes(
  concurrency: number,
  durationMs: number,
  once: (i: number) => Promise<void>,
): Promise<Omit<ImageRow, 'role' | 'name'>> {
  const latencies: number[] = [];
  let errors = 0;
  let n = 0;
  const started = performance.now();
  const until = started + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const at = performance.now();
        try {
          await once(n++);
          latencies.push(performance.now() - at);
        } catch {
          errors++;
        }
      }
    }),
  );
  return {
    perSecond: round(latencies.length / ((performance.now() - started) / 1000)),
    p50Ms: round(percentile(latencies, 50)),
    p99Ms: round(percentile(latencies, 99)),
    errors,
  };
}

async function post(pool: Pool, token: string, path: string, body: unknown): Promise<any> {
  const res = await pool.request({
    method: 'POST',
    path,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${path} → ${res.statusCode} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

async function server(
  settings: MediaBenchSettings,
  env: Record<string, string>,
): Promise<ServerUnderTest & { token: string }> {
  if (settings.target)
    return { url: settings.target.url, token: settings.target.token, sample: null, close: () => Promise.resolve() };
  const started = await startGateway({ inProcess: settings.inProcess, env });
  return { ...started, token: started.token ?? '' };
}

const reading = (sample: ServerUnderTest['sample']): ResourceReading | null =>
  sample === 'self' ? readSelf() : typeof sample === 'number' ? readProcess(sample) : null;

async function imageRows(settings: MediaBenchSettings): Promise<ImageRow[]> {
  const gateway = await server(settings, {});
  const pool = new Pool(gateway.url, { connections: settings.concurrency, pipelining: 1 });
  let ours;
  try {
    // Each prompt differs, so nothing is served twice.
    const once = (i: number) =>
      post(pool, gateway.token, '/v1/images/generations', {
        prompt: `a lighthouse on a cliff, variant ${i}`,
        size: '1024x1024',
        response_format: 'b64_json',
      }).then(() => undefined);
    await lanes(settings.concurrency, Math.min(1000, settings.durationMs), once);
    ours = await lanes(settings.concurrency, settings.durationMs, once);
  } finally {
    await pool.close();
    await gateway.close();
  }
  const backend = createSimImageBackend({ clock: systemClock, latencyMs: 0 });
  const direct = (i: number) =>
    backend
      .render({
        prompt: `a lighthouse on a cliff, variant ${i}`,
        negativePrompt: null,
        width: 1024,
        height: 1024,
        tier: 'standard',
        seed: i,
        format: 'png',
        compression: null,
        background: 'opaque',
        text: null,
        references: [],
        mask: null,
        attempt: 0,
        repairOf: null,
        script: null,
        signal: new AbortController().signal,
      })
      .then((image) => void image.bytes.toString('base64'));
  await lanes(settings.concurrency, Math.min(1000, settings.durationMs), direct);
  const baseline = await lanes(settings.concurrency, settings.durationMs, direct);
  return [
    {
      role: 'ours',
      name: `svc gateway, POST /v1/images/generations 1024x1024 b64_json, ${settings.concurrency} in flight`,
      ...ours,
    },
    { role: 'baseline', name: 'sim image backend called directly (render + base64), same concurrency', ...baseline },
  ];
}

async function heldJobsOurs(settings: MediaBenchSettings): Promise<JobsRow> {
  // An hour of sim work per second of clip: every job stays running for the whole hold.
  const gateway = await server(settings, {
    SVC_SIM_VIDEO_SECONDS_PER_SECOND: '3600',
    SVC_VIDEO_MAX_RUNNING: '100000',
    SVC_VIDEO_POLL_MS: String(settings.pollMs),
  });
  const pool = new Pool(gateway.url, { connections: 32, pipelining: 1 });
  try {
    await pause(500);
    const before = reading(gateway.sample);
    let created = 0;
    let errors = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (created + errors < settings.jobs) {
          const i = created + errors;
          created++;
          await post(pool, gateway.token, '/v1/videos/generations', {
            prompt: `a held clip ${i}`,
            duration_seconds: 1,
            size: '320x240',
            seed: i,
          }).catch(() => {
            created--;
            errors++;
          });
        }
      }),
    );
    const createdPerSecond = round(created / ((performance.now() - started) / 1000));
    settings.onStep?.(`media: ${created} video jobs created, held ${settings.holdMs / 1000} s`);
    await pause(1000);
    const holdStart = reading(gateway.sample);
    const holdStartedAt = performance.now();
    await pause(settings.holdMs);
    const after = reading(gateway.sample);
    const heldFor = performance.now() - holdStartedAt;
    const res = await pool.request({
      method: 'GET',
      path: '/v1/videos?limit=100',
      headers: { authorization: `Bearer ${gateway.token}` },
    });
    const page = (await res.body.json()) as { data: { status: string }[] };
    const running = page.data.filter((job) => job.status === 'in_progress').length;
    return {
      role: 'ours',
      name: `svc gateway: durable job actors (LMDB), polled every ${settings.pollMs} ms`,
      jobs: created,
      createdPerSecond,
      runningChecked: `${running} of ${page.data.length} sampled`,
      rssMbBefore: before ? mb(before.rssBytes) : null,
      rssMbAfter: after ? mb(after.rssBytes) : null,
      kbPerJob: before && after && created > 0 ? round((after.rssBytes - before.rssBytes) / 1024 / created) : null,
      cpuPercent: holdStart && after ? round((100 * (after.cpuMs - holdStart.cpuMs)) / heldFor) : null,
      errors,
    };
  } finally {
    await pool.close();
    await gateway.close();
  }
}

function heldJobsBaseline(settings: MediaBenchSettings): Promise<JobsRow> {
  return new Promise((resolveRow, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/media/bare-video-jobs-main.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        BENCH_JOBS: String(settings.jobs),
        BENCH_POLL_MS: String(settings.pollMs),
        BENCH_HOLD_MS: String(settings.holdMs),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err = (err + chunk.toString()).slice(-2000)));
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`bare video jobs exited with ${code}: ${err}`));
      const result = JSON.parse(out.trim().split('\n').at(-1)!) as {
        jobs: number;
        rssBefore: number;
        rssAfter: number;
        cpuPercent: number;
      };
      resolveRow({
        role: 'baseline',
        name: 'the same job machines as bare XState actors (setTimeout polls; no host, store, HTTP, billing)',
        jobs: result.jobs,
        createdPerSecond: null,
        runningChecked: `${result.jobs} (in memory)`,
        rssMbBefore: mb(result.rssBefore),
        rssMbAfter: mb(result.rssAfter),
        kbPerJob: round((result.rssAfter - result.rssBefore) / 1024 / result.jobs),
        cpuPercent: round(result.cpuPercent),
        errors: 0,
      });
    });
  });
}

/** Runs both media figures, each beside its same-run baseline. */
export async function runMediaBench(settings: MediaBenchSettings): Promise<MediaReport> {
  settings.onStep?.(`media: images 1024x1024, ${settings.concurrency} in flight, gateway then direct`);
  const images = await imageRows(settings);
  settings.onStep?.(`media: ${settings.jobs} video jobs held by one process, then the bare baseline`);
  const videoJobs = [await heldJobsOurs(settings)];
  if (!settings.target) videoJobs.push(await heldJobsBaseline(settings));
  return {
    scenario: 'media',
    concurrency: settings.concurrency,
    durationMs: settings.durationMs,
    holdMs: settings.holdMs,
    pollMs: settings.pollMs,
    images,
    videoJobs,
  };
}
