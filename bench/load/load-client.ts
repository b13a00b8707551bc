import { setTimeout as sleep } from 'node:timers/promises';
import { Client, type Dispatcher } from 'undici';
import { Histogram, type HistogramData } from './histogram.js';
import { readStatCpuMs } from './process-sampler.js';
import { SseCounter } from './sse-counter.js';

/** One load run: where to send what, how hard and for how long. */
export interface LoadOptions {
  /** Full URL of the endpoint, e.g. `http://127.0.0.1:8080/v1/chat/completions`. */
  url: string;
  headers: Record<string, string>;
  /** The JSON body; a UNIQUE_MARKER in it is replaced per request (see there). */
  body: string;
  /** `json`: one JSON response per request; `sse`: an event stream ending with `data: [DONE]` or `response.completed`. */
  mode: 'json' | 'sse';
  /** Keep-alive connections, each with one request in flight (no pipelining). */
  connections: number;
  /** Measured window, after the warm-up. */
  durationMs: number;
  warmupMs: number;
  /** Total requests per second spread over the connections; null: each connection as fast as it can. */
  rate: number | null;
  /** Stop after this many measured requests (null: only the duration bounds the run). */
  maxRequests: number | null;
  /** Per request: headers and body each within this time, or the request counts as a timeout. */
  timeoutMs: number;
}

/**
 * Put this in a body to make every request distinct: the first occurrence is replaced with
 * `<run id>-<counter>`, so a server-side response cache never answers a load run.
 */
export const UNIQUE_MARKER = '{{unique}}';

/** What a load run measured (only requests that completed inside the measured window count). */
export interface LoadStats {
  requests: number;
  errors: Record<string, number>;
  /** First failure of each kind, trimmed: the body of a 4xx/5xx, the network error's message. */
  errorSamples: Record<string, string>;
  windowMs: number;
  /** Request sent to last byte received. */
  latency: HistogramData;
  /** SSE only: time to first body byte, gaps between consecutive events, events per stream. */
  sse: { ttfb: HistogramData; gaps: HistogramData; eventsMin: number; eventsMax: number; eventsTotal: number } | null;
  /** The client thread's own load: if it nears 100 %, the client, not the server, set the pace. */
  client: { cpuPercent: number | null; eventLoopUtilization: number };
}

/** Live counters for a progress line. */
export interface LoadProgress {
  elapsedMs: number;
  /** `measuring` is posted once at the start of the window, `done` once at its end. */
  phase: 'warmup' | 'measuring' | 'done';
  completed: number;
  errors: number;
}

type Outcome =
  | { ok: true; sent: number; end: number; ttfb: number; eventTimes: number[] | null; events: number }
  | { ok: false; kind: string; detail: string };

function errorKind(err: unknown): { kind: string; detail: string } {
  const e = err as { code?: string; message?: string };
  const code = e.code ?? 'unknown';
  return {
    kind: code.includes('TIMEOUT') ? `timeout:${code}` : `network:${code}`,
    detail: String(e.message ?? err).slice(0, 200),
  };
}

/** A body per request: the fixed bytes, or the marker replaced with a fresh value each time. */
function bodySource(body: string): () => Buffer {
  const at = body.indexOf(UNIQUE_MARKER);
  if (at < 0) {
    const fixed = Buffer.from(body);
    return () => fixed;
  }
  const head = body.slice(0, at);
  const tail = body.slice(at + UNIQUE_MARKER.length);
  const run = Math.random().toString(36).slice(2, 10);
  let counter = 0;
  return () => Buffer.from(`${head}${run}-${(++counter).toString(36)}${tail}`);
}

function sendOne(client: Client, dispatch: Dispatcher.DispatchOptions, mode: LoadOptions['mode']): Promise<Outcome> {
  return new Promise((resolve) => {
    const sent = performance.now();
    let status = 0;
    let ttfb = 0;
    const chunks: Buffer[] = [];
    const eventTimes: number[] | null = mode === 'sse' ? [] : null;
    const sse = mode === 'sse' ? new SseCounter((at) => eventTimes!.push(at)) : null;
    client.dispatch(dispatch, {
      onRequestStart() {
        // undici takes a handler as new-style (controller API) only when this is present
      },
      onResponseStart(_controller, statusCode) {
        status = statusCode;
      },
      onResponseData(_controller, chunk) {
        const at = performance.now();
        if (ttfb === 0) ttfb = at;
        if (sse && status === 200) sse.push(chunk, at);
        else chunks.push(chunk);
      },
      onResponseEnd() {
        const end = performance.now();
        if (status !== 200)
          return resolve({
            ok: false,
            kind: `status:${status}`,
            detail: Buffer.concat(chunks).toString('utf8').slice(0, 300),
          });
        if (sse) {
          const result = sse.finish();
          if (result.badPayload !== null)
            return resolve({ ok: false, kind: 'parse:sse-json', detail: result.badPayload });
          if (!result.done)
            return resolve({
              ok: false,
              kind: 'parse:no-done',
              detail: `stream ended after ${result.events} events without data: [DONE]`,
            });
          return resolve({ ok: true, sent, end, ttfb: ttfb || end, eventTimes, events: result.events });
        }
        const text = Buffer.concat(chunks).toString('utf8');
        try {
          JSON.parse(text);
        } catch {
          return resolve({ ok: false, kind: 'parse:json', detail: text.slice(0, 200) });
        }
        resolve({ ok: true, sent, end, ttfb: ttfb || end, eventTimes: null, events: 0 });
      },
      onResponseError(_controller, err) {
        resolve({ ok: false, ...errorKind(err) });
      },
    });
  });
}

/** Waits for `promise` at most `ms`, leaving no timer behind. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, ms))))]);
  clearTimeout(timer);
}

/** Runs keep-alive load against one endpoint and returns latency histograms and error counts. */
export async function runLoad(options: LoadOptions, onProgress?: (progress: LoadProgress) => void): Promise<LoadStats> {
  const url = new URL(options.url);
  const nextBody = bodySource(options.body);
  const dispatch: Dispatcher.DispatchOptions = {
    path: url.pathname + url.search,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...options.headers },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  };
  const clients = Array.from(
    { length: options.connections },
    () => new Client(url.origin, { pipelining: 1, keepAliveTimeout: 60_000, connectTimeout: options.timeoutMs }),
  );

  const latency = new Histogram();
  const ttfb = new Histogram();
  const gaps = new Histogram();
  const errors: Record<string, number> = {};
  const errorSamples: Record<string, string> = {};
  let requests = 0;
  let completed = 0;
  let errorCount = 0;
  let eventsMin = Infinity;
  let eventsMax = 0;
  let eventsTotal = 0;

  const t0 = performance.now();
  const measureStart = t0 + options.warmupMs;
  const measureEnd = measureStart + options.durationMs;
  let stopped = false;
  let cpuStart: number | null = null;
  let eluStart = performance.eventLoopUtilization();
  const warmupTimer = setTimeout(() => {
    cpuStart = readStatCpuMs('/proc/thread-self/stat');
    eluStart = performance.eventLoopUtilization();
    onProgress?.({ elapsedMs: performance.now() - t0, phase: 'measuring', completed, errors: errorCount });
  }, options.warmupMs);
  const progressTimer = setInterval(() => {
    const now = performance.now();
    onProgress?.({
      elapsedMs: now - t0,
      phase: now < measureStart ? 'warmup' : 'measuring',
      completed,
      errors: errorCount,
    });
  }, 500);

  const record = (outcome: Outcome) => {
    const now = performance.now();
    const measured = now >= measureStart && now <= measureEnd;
    if (!outcome.ok) {
      errorCount += 1;
      if (!measured) return;
      errors[outcome.kind] = (errors[outcome.kind] ?? 0) + 1;
      errorSamples[outcome.kind] ??= outcome.detail;
      return;
    }
    completed += 1;
    if (!measured) return;
    requests += 1;
    latency.record(outcome.end - outcome.sent);
    if (outcome.eventTimes) {
      ttfb.record(outcome.ttfb - outcome.sent);
      for (let i = 1; i < outcome.eventTimes.length; i++)
        gaps.record(outcome.eventTimes[i]! - outcome.eventTimes[i - 1]!);
      eventsMin = Math.min(eventsMin, outcome.events);
      eventsMax = Math.max(eventsMax, outcome.events);
      eventsTotal += outcome.events;
    }
    if (options.maxRequests !== null && requests >= options.maxRequests) stopped = true;
  };

  const interval = options.rate ? (1000 * options.connections) / options.rate : 0;
  const loop = async (client: Client, index: number) => {
    for (let k = 0; !stopped && performance.now() < measureEnd; k++) {
      if (interval > 0) {
        // Paced: connection `index` sends at t0 + (k + index/connections) × interval; latency is
        // measured from the actual send, and a server that falls behind shows as a lower rate.
        const wait = t0 + (k + index / options.connections) * interval - performance.now();
        if (wait > 0) await sleep(wait);
        if (stopped || performance.now() >= measureEnd) break;
      }
      const outcome = await sendOne(client, { ...dispatch, body: nextBody() }, options.mode);
      record(outcome);
      if (!outcome.ok && outcome.kind.startsWith('network:')) await sleep(10); // a dead server must not spin the loop
    }
  };
  const loops = Promise.all(clients.map((client, index) => loop(client, index)));

  // Stop issuing at the end of the window (or at maxRequests); give in-flight requests up to
  // timeoutMs, then cut them.
  await within(loops, measureEnd - performance.now());
  const windowMs = Math.min(performance.now(), measureEnd) - measureStart;
  const cpuEnd = readStatCpuMs('/proc/thread-self/stat');
  const elu = performance.eventLoopUtilization(eluStart);
  stopped = true;
  clearTimeout(warmupTimer);
  clearInterval(progressTimer);
  onProgress?.({ elapsedMs: performance.now() - t0, phase: 'done', completed, errors: errorCount });
  await within(loops, options.timeoutMs);
  await Promise.all(clients.map((client) => client.destroy().catch(() => undefined)));
  await loops;

  const cpuPercent =
    cpuStart !== null && cpuEnd !== null ? Math.round(((cpuEnd - cpuStart) / Math.max(1, windowMs)) * 1000) / 10 : null;
  return {
    requests,
    errors,
    errorSamples,
    windowMs: Math.round(windowMs),
    latency: latency.data,
    sse:
      options.mode === 'sse'
        ? {
            ttfb: ttfb.data,
            gaps: gaps.data,
            eventsMin: eventsMin === Infinity ? 0 : eventsMin,
            eventsMax,
            eventsTotal,
          }
        : null,
    client: { cpuPercent, eventLoopUtilization: Math.round(elu.utilization * 1000) / 1000 },
  };
}
