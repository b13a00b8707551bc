import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** What the metrics read at scrape time, so nothing is counted twice or kept per request. */
export interface MetricSources {
  /** Every actor in memory with its machine and active state paths. */
  actors(): Iterable<{ machine: string; state: readonly string[] }>;
  /** Unfinished actors parked in the store (out of memory), by machine. */
  parkedActors(): ReadonlyMap<string, number>;
  /** Committed transitions per machine since start. */
  transitions(): ReadonlyMap<string, number>;
  /** SSE responses open now. */
  sseStreams(): number;
  /** Realtime calls open now. */
  realtimeCalls(): number;
}

/** How a request's latency is bucketed (seconds): sub-millisecond gateway work up to long polls. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The operator metrics in the Prometheus text format, through prom-client: requests by route and
 * status with latency histograms, live actors by machine and state, transitions, SSE streams and
 * realtime calls open, holds and charges, upstream calls and failures by backend, and the process
 * defaults (event-loop lag, heap, GC). Gauges are read from their sources when scraped, so an
 * unscraped registry costs one counter increment per request and nothing else.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'route' | 'method' | 'status'>;
  private readonly latency: Histogram<'route' | 'method'>;
  private readonly upstreamCalls: Counter<'backend' | 'kind'>;
  private readonly upstreamFailures: Counter<'backend' | 'kind'>;
  private readonly billingOps: Counter<'op'>;
  private readonly billingMicros: Counter<'op'>;

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 20 });
    this.requests = new Counter({
      name: 'svc_http_requests_total',
      help: 'HTTP requests answered, by route pattern, method and status.',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    this.latency = new Histogram({
      name: 'svc_http_request_duration_seconds',
      help: 'Time to answer (to the first byte for streams), by route pattern and method.',
      labelNames: ['route', 'method'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.upstreamCalls = new Counter({
      name: 'svc_upstream_calls_total',
      help: 'Calls to model backends, by backend and kind.',
      labelNames: ['backend', 'kind'],
      registers,
    });
    this.upstreamFailures = new Counter({
      name: 'svc_upstream_failures_total',
      help: 'Backend calls that failed, by backend and kind.',
      labelNames: ['backend', 'kind'],
      registers,
    });
    this.billingOps = new Counter({
      name: 'svc_billing_operations_total',
      help: 'Holds placed, holds released and charges settled.',
      labelNames: ['op'],
      registers,
    });
    this.billingMicros = new Counter({
      name: 'svc_billing_micro_usd_total',
      help: 'Micro-USD held and charged.',
      labelNames: ['op'],
      registers,
    });
    new Gauge({
      name: 'svc_actors_live',
      help: 'Actors in memory by machine and active state (parked ones are svc_actors_parked).',
      labelNames: ['machine', 'state'],
      registers,
      collect() {
        this.reset();
        for (const actor of sources.actors())
          this.inc({ machine: actor.machine, state: actor.state.join(',') || '(running)' });
      },
    });
    new Gauge({
      name: 'svc_actors_parked',
      help: 'Unfinished actors parked in the store (waiting for a client or a deadline, out of memory), by machine.',
      labelNames: ['machine'],
      registers,
      collect() {
        this.reset();
        for (const [machine, count] of sources.parkedActors()) this.set({ machine }, count);
      },
    });
    const seen = new Map<string, number>();
    new Counter({
      name: 'svc_actor_transitions_total',
      help: 'Committed actor transitions by machine (rate() gives transitions per second).',
      labelNames: ['machine'],
      registers,
      collect() {
        for (const [machine, count] of sources.transitions()) {
          this.inc({ machine }, count - (seen.get(machine) ?? 0));
          seen.set(machine, count);
        }
      },
    });
    new Gauge({
      name: 'svc_sse_streams_open',
      help: 'SSE responses open.',
      registers,
      collect() {
        this.set(sources.sseStreams());
      },
    });
    new Gauge({
      name: 'svc_realtime_calls_open',
      help: 'Realtime calls open.',
      registers,
      collect() {
        this.set(sources.realtimeCalls());
      },
    });
  }

  /** Counts one answered request; `route` is the pattern (`/v1/files/:id`), never the raw path. */
  request(route: string, method: string, status: number, seconds: number): void {
    this.requests.inc({ route, method, status: String(status) });
    this.latency.observe({ route, method }, seconds);
  }

  /** Counts one backend call and whether it failed. */
  upstream(backend: string, kind: string, failed: boolean): void {
    this.upstreamCalls.inc({ backend, kind });
    if (failed) this.upstreamFailures.inc({ backend, kind });
  }

  /** Counts a hold, release or charge of `micros`. */
  billing(op: 'hold' | 'release' | 'charge', micros: number): void {
    this.billingOps.inc({ op });
    if (micros > 0) this.billingMicros.inc({ op }, micros);
  }

  /** The exposition text. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** The exposition's Content-Type. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Stops the default collectors' monitors. */
  close(): void {
    this.registry.clear();
  }
}
