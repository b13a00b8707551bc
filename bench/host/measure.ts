import { Histogram } from '../load/histogram.js';

/** One throughput figure of the host benchmarks, beside its group's baselines. */
export interface HostFigure {
  group: string;
  name: string;
  baseline: boolean;
  /** A baseline's short name in the comparison column (e.g. `bare LMDB`). */
  short: string | null;
  /** A baseline every row of the group is compared with; otherwise only rows of the same concurrency. */
  everyRow: boolean;
  /** What one counted item is: an actor spawned, a transition, an event appended, a delivery. */
  unit: string;
  /** Items completed inside the measured window. */
  count: number;
  seconds: number;
  perSecond: number;
  /** Latency of one awaited operation (one item, or one batch of `unit` items), µs. */
  p50Us: number | null;
  p99Us: number | null;
  /** Concurrent loops (1: each operation awaited before the next). */
  concurrency: number;
  note: string | null;
}

/** An operation to time: resolves (or returns) the number of items it completed. */
export type Operation = (loop: number) => Promise<number> | number;

/** What a figure is called and counted as. */
export interface FigureSpec {
  group: string;
  name: string;
  baseline?: boolean;
  /** Short name of a baseline, for the comparison column. */
  short?: string;
  /** Compare every row of the group with this baseline (one with no I/O, where concurrency means nothing). */
  everyRow?: boolean;
  unit: string;
  note?: string;
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/**
 * Runs `op` in `concurrency` loops, each awaiting its previous call, for `timeMs` after a warm-up
 * of `warmupMs`; counts the items completed in the window and times every call completed in it.
 */
export async function measure(
  spec: FigureSpec,
  op: Operation,
  options: { timeMs: number; warmupMs: number; concurrency: number },
): Promise<HostFigure> {
  const latency = new Histogram();
  const t0 = performance.now();
  const start = t0 + options.warmupMs;
  const end = start + options.timeMs;
  let count = 0;
  let lastYield = t0;
  // On a loaded machine one operation can outlast a short window: the window then stays open until
  // one completes in it, and the rate is over the window as it really was.
  let windowEnd = end;
  let landed = false;
  const loop = async (index: number) => {
    for (;;) {
      const before = performance.now();
      if (before >= end && landed) return;
      const items = await op(index);
      const after = performance.now();
      // Items count when they complete inside the window (an operation begun in the warm-up too),
      // so long operations in many loops are not under-counted at the window's edges.
      if (after >= start && (after <= end || !landed)) {
        landed = true;
        count += items;
        latency.record(after - before);
        if (after > windowEnd) windowEnd = after;
      }
      // A synchronous operation never yields: let timers and commits run now and then.
      if (after - lastYield > 20) {
        lastYield = after;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, (_, index) => loop(index)));
  const seconds = (windowEnd - start) / 1000;
  const summary = latency.summary();
  return {
    group: spec.group,
    name: spec.name,
    baseline: spec.baseline ?? false,
    short: spec.short ?? null,
    everyRow: spec.everyRow ?? false,
    unit: spec.unit,
    count,
    seconds,
    perSecond: Math.round(count / seconds),
    p50Us: round(summary.p50 * 1000, 1),
    p99Us: round(summary.p99 * 1000, 1),
    concurrency: options.concurrency,
    note: spec.note ?? null,
  };
}

/** A figure measured once over a fixed amount of work (no window), e.g. writing 100,000 records. */
export function fixedFigure(spec: FigureSpec, count: number, ms: number, concurrency: number): HostFigure {
  const seconds = ms / 1000;
  return {
    group: spec.group,
    name: spec.name,
    baseline: spec.baseline ?? false,
    short: spec.short ?? null,
    everyRow: spec.everyRow ?? false,
    unit: spec.unit,
    count,
    seconds: round(seconds, 3),
    perSecond: Math.round(count / Math.max(seconds, 1e-6)),
    p50Us: null,
    p99Us: null,
    concurrency,
    note: spec.note ?? null,
  };
}
