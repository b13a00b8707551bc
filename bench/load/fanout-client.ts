import { Client } from 'undici';
import { Histogram, type HistogramData } from './histogram.js';
import { readStatCpuMs } from './process-sampler.js';
import { SessionEventReader, type SequenceCheck } from './session-event-reader.js';

/** One fan-out run: N followers of one event stream. */
export interface FanoutOptions {
  /** The stream, e.g. `http://127.0.0.1:8080/v1/chat/sessions/sess_…/events?after=-1`. */
  url: string;
  headers: Record<string, string>;
  followers: number;
  /** A follower is ready once it has received this seq (0: once its first body byte arrived). */
  readySeq: number;
  /** Delivery latency counts only events after this seq (history replayed on connect is not live). */
  liveAfter: number;
  /** Every follower must be ready within this. */
  connectTimeoutMs: number;
  /** After all are ready, every stream must end within this. */
  timeoutMs: number;
}

/** What the followers saw. */
export interface FanoutStats {
  followers: number;
  ready: number;
  /** Streams that ended with status 200 on an event boundary. */
  ended: number;
  errors: Record<string, number>;
  errorSamples: Record<string, string>;
  /** Request sent to ready (history received), ms. */
  connectMs: HistogramData;
  /** Every delivery of a live event: receive time − the event's `ts`, ms. */
  latency: HistogramData;
  /** Per live event: the latency of the last follower to get it, ms. */
  eventReach: HistogramData;
  /** Live events seen (distinct seqs). */
  liveEvents: number;
  /** Deliveries of live events per follower: min and max. */
  order: {
    followersWithProblems: number;
    gaps: number;
    duplicates: number;
    outOfOrder: number;
    bad: number;
    unterminated: number;
    firstSeq: { min: number; max: number };
    lastSeq: { min: number; max: number };
    events: { min: number; max: number };
    firstProblem: string | null;
  };
  /** Date.now() − (performance.timeOrigin + performance.now()) in this thread, added to every receive time. */
  clockOffsetMs: number;
  /** From all ready to all ended. */
  deliveryWindowMs: number;
  /** This client thread over the delivery window: near 100 % means the client set the pace. */
  client: { cpuPercent: number | null; eventLoopUtilization: number };
}

/** Messages of a fan-out run besides its result. */
export type FanoutProgress = { phase: 'ready'; ready: number; failed: number };

const highRes = () => performance.timeOrigin + performance.now();

/**
 * Date.now() − (timeOrigin + now()) in this thread: sampled over a few ms, the largest difference
 * is the one taken just after Date.now() ticked, so it is the offset between the clocks within µs.
 */
function clockOffsetMs(): number {
  let offset = -Infinity;
  for (const end = performance.now() + 3; performance.now() < end;) offset = Math.max(offset, Date.now() - highRes());
  return offset;
}

interface Follower {
  reader: SessionEventReader;
  ready: boolean;
  /** Ended (cleanly or not): nothing more will be counted for it. */
  done: boolean;
  failed: boolean;
}

function errorKind(err: unknown): { kind: string; detail: string } {
  const e = err as { code?: string; message?: string };
  const code = e.code ?? 'unknown';
  return {
    kind: code.includes('TIMEOUT') ? `timeout:${code}` : `network:${code}`,
    detail: String(e.message ?? err).slice(0, 200),
  };
}

function orderSummary(followers: Follower[], unterminated: number): FanoutStats['order'] {
  const checks: SequenceCheck[] = followers.map((f) => f.reader.check);
  const range = (pick: (c: SequenceCheck) => number | null) => {
    const values = checks.map(pick).filter((v): v is number => v !== null);
    return values.length ? { min: Math.min(...values), max: Math.max(...values) } : { min: 0, max: 0 };
  };
  const sum = (pick: (c: SequenceCheck) => number) => checks.reduce((total, c) => total + pick(c), 0);
  return {
    followersWithProblems: checks.filter((c) => c.gaps + c.duplicates + c.outOfOrder + c.bad > 0).length,
    gaps: sum((c) => c.gaps),
    duplicates: sum((c) => c.duplicates),
    outOfOrder: sum((c) => c.outOfOrder),
    bad: sum((c) => c.bad),
    unterminated,
    firstSeq: range((c) => c.firstSeq),
    lastSeq: range((c) => c.lastSeq),
    events: range((c) => c.events),
    firstProblem: checks.find((c) => c.firstProblem !== null)?.firstProblem ?? null,
  };
}

/** Waits for `promise` at most `ms`, leaving no timer behind. */
async function within(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** The followers of one run: their streams, what they received, and when all were ready and done. */
class FollowerPool {
  readonly followers: Follower[] = [];
  readonly latency = new Histogram();
  readonly connect = new Histogram();
  /** Per live seq: the latency of the slowest follower so far. */
  readonly reach = new Map<number, number>();
  readonly errors: Record<string, number> = {};
  readonly errorSamples: Record<string, string> = {};
  ready = 0;
  unterminated = 0;
  private failedBeforeReady = 0;
  private finished = 0;
  private readonly offset = clockOffsetMs();
  private resolveReady!: () => void;
  private resolveDone!: () => void;
  readonly allReady = new Promise<void>((resolve) => (this.resolveReady = resolve));
  readonly allDone = new Promise<void>((resolve) => (this.resolveDone = resolve));

  constructor(private readonly options: FanoutOptions) {}

  /** Date.now()'s clock, with sub-millisecond resolution. */
  private now(): number {
    return highRes() + this.offset;
  }

  /** The offset added to the high-resolution clock, rounded to µs. */
  get offsetMs(): number {
    return Math.round(this.offset * 1000) / 1000;
  }

  private settle(): void {
    if (this.ready + this.failedBeforeReady === this.options.followers) this.resolveReady();
  }

  private finish(): void {
    if (++this.finished >= this.options.followers) this.resolveDone();
  }

  /** Counts a follower as failed with `kind` (once). */
  fail(follower: Follower, kind: string, detail: string): void {
    if (follower.done) return;
    follower.done = true;
    follower.failed = true;
    this.errors[kind] = (this.errors[kind] ?? 0) + 1;
    this.errorSamples[kind] ??= detail;
    if (!follower.ready) this.failedBeforeReady++;
    this.settle();
    this.finish();
  }

  /** Opens one follower's stream on `client`. */
  open(client: Client, url: URL): void {
    const { readySeq, liveAfter } = this.options;
    const sent = performance.now();
    let status = 0;
    const body: Buffer[] = [];
    const markReady = () => {
      follower.ready = true;
      this.ready++;
      this.connect.record(performance.now() - sent);
      this.settle();
    };
    const follower: Follower = {
      ready: false,
      done: false,
      failed: false,
      reader: new SessionEventReader((event, at) => {
        if (!follower.ready && event.seq >= readySeq) markReady();
        if (event.seq <= liveAfter) return;
        const ms = at - event.ts;
        this.latency.record(ms);
        this.reach.set(event.seq, Math.max(this.reach.get(event.seq) ?? 0, ms));
      }),
    };
    this.followers.push(follower);
    client.dispatch(
      {
        path: url.pathname + url.search,
        method: 'GET',
        headers: { accept: 'text/event-stream', ...this.options.headers },
        headersTimeout: this.options.connectTimeoutMs,
        bodyTimeout: 0,
      },
      {
        onRequestStart() {
          // undici takes a handler as new-style (controller API) only when this is present
        },
        onResponseStart(_controller, statusCode) {
          status = statusCode;
        },
        onResponseData: (_controller, chunk) => {
          if (status !== 200) return void body.push(chunk);
          if (!follower.ready && readySeq <= 0) markReady();
          follower.reader.push(chunk, this.now());
        },
        onResponseEnd: () => {
          if (status !== 200)
            return this.fail(follower, `status:${status}`, Buffer.concat(body).toString('utf8').slice(0, 300));
          if (!follower.reader.finish()) this.unterminated++;
          if (!follower.ready)
            return this.fail(
              follower,
              'ended-before-ready',
              `stream ended after ${follower.reader.check.events} events`,
            );
          follower.done = true;
          this.finish();
        },
        onResponseError: (_controller, err) => {
          const { kind, detail } = errorKind(err);
          this.fail(follower, kind, detail);
        },
      },
    );
  }
}

/**
 * Opens `followers` SSE streams (one undici Client each), reports `ready` once every one has its
 * history, then records each live event's delivery latency against the server's `ts` and checks
 * every stream's seqs, until all streams end or the timeout.
 */
export async function runFanout(
  options: FanoutOptions,
  onProgress: (progress: FanoutProgress) => void,
): Promise<FanoutStats> {
  const url = new URL(options.url);
  const pool = new FollowerPool(options);
  const clients = Array.from(
    { length: options.followers },
    () => new Client(url.origin, { pipelining: 1, connectTimeout: options.connectTimeoutMs, keepAliveTimeout: 1000 }),
  );
  for (const client of clients) pool.open(client, url);
  await within(pool.allReady, options.connectTimeoutMs);
  onProgress({ phase: 'ready', ready: pool.ready, failed: options.followers - pool.ready });

  const start = performance.now();
  const cpuStart = readStatCpuMs('/proc/thread-self/stat');
  const eluStart = performance.eventLoopUtilization();
  await within(pool.allDone, options.timeoutMs);
  const windowMs = performance.now() - start;
  const cpuEnd = readStatCpuMs('/proc/thread-self/stat');
  const elu = performance.eventLoopUtilization(eluStart);
  for (const follower of pool.followers)
    if (!follower.done)
      pool.fail(follower, 'timeout:stream-not-ended', `stream still open ${options.timeoutMs} ms after all were ready`);
  await Promise.all(clients.map((client) => client.destroy().catch(() => undefined)));

  const eventReach = new Histogram();
  for (const ms of pool.reach.values()) eventReach.record(ms);
  return {
    followers: options.followers,
    ready: pool.ready,
    ended: pool.followers.filter((f) => f.done && !f.failed).length,
    errors: pool.errors,
    errorSamples: pool.errorSamples,
    connectMs: pool.connect.data,
    latency: pool.latency.data,
    eventReach: eventReach.data,
    liveEvents: pool.reach.size,
    order: orderSummary(pool.followers, pool.unterminated),
    clockOffsetMs: pool.offsetMs,
    deliveryWindowMs: Math.round(windowMs),
    client: {
      cpuPercent:
        cpuStart !== null && cpuEnd !== null
          ? Math.round(((cpuEnd - cpuStart) / Math.max(1, windowMs)) * 1000) / 10
          : null,
      eventLoopUtilization: Math.round(elu.utilization * 1000) / 1000,
    },
  };
}
