// An HDR-like log-linear histogram: values in 0.1 µs units, 64 linear sub-buckets per power of two
// (under 1.6% relative error), exact min/max/mean. Plain typed arrays, so it crosses a worker
// boundary with postMessage and merges by adding counts.

const SUB = 64;
const LINEAR = SUB * 2; // values below 128 units (12.8 µs) get one bucket each
const UNITS_PER_MS = 10_000;
const MAX_UNITS = 2 ** 31 - 1; // ~214 s: anything longer is clamped (and still counted in max)
const BUCKETS = LINEAR + (31 - 7) * SUB;

/** Percentiles of one histogram, in milliseconds. */
export interface LatencySummary {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
}

/** The serialisable state of a histogram (what a worker posts back). */
export interface HistogramData {
  counts: Float64Array;
  count: number;
  sumMs: number;
  minMs: number;
  maxMs: number;
}

function bucketOf(units: number): number {
  if (units < LINEAR) return units;
  const exponent = 31 - Math.clz32(units) - 6; // units >> exponent lies in [64, 128)
  return LINEAR + (exponent - 1) * SUB + ((units >>> exponent) - SUB);
}

function bucketMidMs(index: number): number {
  if (index < LINEAR) return index / UNITS_PER_MS;
  const exponent = Math.floor((index - LINEAR) / SUB) + 1;
  const low = (SUB + ((index - LINEAR) % SUB)) * 2 ** exponent;
  return (low + 2 ** (exponent - 1)) / UNITS_PER_MS;
}

/** A latency histogram recording milliseconds (as from `performance.now()` differences). */
export class Histogram {
  readonly data: HistogramData;

  constructor(data?: HistogramData) {
    this.data = data ?? { counts: new Float64Array(BUCKETS), count: 0, sumMs: 0, minMs: Infinity, maxMs: 0 };
  }

  /** Records one value in milliseconds (negative values count as 0). */
  record(ms: number): void {
    const value = ms > 0 ? ms : 0;
    const units = Math.min(MAX_UNITS, Math.round(value * UNITS_PER_MS));
    this.data.counts[bucketOf(units)]! += 1;
    this.data.count += 1;
    this.data.sumMs += value;
    if (value < this.data.minMs) this.data.minMs = value;
    if (value > this.data.maxMs) this.data.maxMs = value;
  }

  /** Adds another histogram's counts into this one. */
  merge(other: HistogramData): void {
    for (let i = 0; i < BUCKETS; i++) this.data.counts[i]! += other.counts[i] ?? 0;
    this.data.count += other.count;
    this.data.sumMs += other.sumMs;
    this.data.minMs = Math.min(this.data.minMs, other.minMs);
    this.data.maxMs = Math.max(this.data.maxMs, other.maxMs);
  }

  /** The value at percentile `p` (0–100) in milliseconds; 0 when empty. */
  percentile(p: number): number {
    const { counts, count, maxMs, minMs } = this.data;
    if (count === 0) return 0;
    const rank = Math.max(1, Math.ceil((p / 100) * count));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += counts[i]!;
      if (seen >= rank) return Math.min(maxMs, Math.max(minMs, bucketMidMs(i)));
    }
    return maxMs;
  }

  /** Count, mean and the usual percentiles, rounded to 0.1 µs. */
  summary(): LatencySummary {
    const round = (ms: number) => Math.round(ms * UNITS_PER_MS) / UNITS_PER_MS;
    const { count, sumMs, maxMs } = this.data;
    return {
      count,
      mean: round(count ? sumMs / count : 0),
      p50: round(this.percentile(50)),
      p90: round(this.percentile(90)),
      p99: round(this.percentile(99)),
      p999: round(this.percentile(99.9)),
      max: round(maxMs),
    };
  }
}
