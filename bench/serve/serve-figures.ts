import type { RequestTiming } from './stream-request.js';
import type { ServiceLevel } from './serve-options.js';

/** Mean and percentiles of one figure, in ms (null when nothing was measured). */
export interface Spread {
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** The standard serving figures of one sweep point (definitions as vLLM's `bench serve`). */
export interface PointFigures {
  completed: number;
  failed: number;
  errors: Record<string, number>;
  /** First send → last end, seconds. */
  durationS: number;
  requestThroughput: number;
  outputTokensPerS: number;
  totalTokensPerS: number;
  totalInputTokens: number;
  totalOutputTokens: number;
  /** Some token counts were estimated here (no `usage` from the server). */
  tokensEstimated: boolean;
  ttftMs: Spread | null;
  tpotMs: Spread | null;
  itlMs: Spread | null;
  e2elMs: Spread | null;
  /** Completed requests meeting every objective in `--slo`, per second (null without `--slo`). */
  goodput: number | null;
  /** The share of completed requests meeting the objectives. */
  goodputShare: number | null;
}

/** The q-th percentile (0–100) of sorted values, linearly interpolated as numpy's default. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const at = ((sorted.length - 1) * q) / 100;
  const low = Math.floor(at);
  const high = Math.min(sorted.length - 1, low + 1);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (at - low);
}

/** Mean, p50, p90, p99 and max of `values` (null when empty). */
export function spread(values: readonly number[]): Spread | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 1000) / 1000;
  return {
    mean: round(sorted.reduce((sum, v) => sum + v, 0) / sorted.length),
    p50: round(percentile(sorted, 50)),
    p90: round(percentile(sorted, 90)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted[sorted.length - 1]!),
  };
}

/** Time per output token after the first: (E2E − TTFT) ÷ (output tokens − 1); null for one token or none. */
export function tpotOf(timing: RequestTiming): number | null {
  if (timing.ttftMs === null || timing.outputTokens <= 1) return null;
  return (timing.e2elMs - timing.ttftMs) / (timing.outputTokens - 1);
}

function meets(timing: RequestTiming, slo: ServiceLevel): boolean {
  const tpot = tpotOf(timing) ?? 0;
  return (
    (slo.ttftMs === undefined || (timing.ttftMs ?? Infinity) <= slo.ttftMs) &&
    (slo.tpotMs === undefined || tpot <= slo.tpotMs) &&
    (slo.e2elMs === undefined || timing.e2elMs <= slo.e2elMs)
  );
}

/** Computes a point's figures from every request's timings. */
export function pointFigures(timings: readonly RequestTiming[], slo: ServiceLevel): PointFigures {
  const ok = timings.filter((t) => t.error === null);
  const errors: Record<string, number> = {};
  for (const t of timings) if (t.error !== null) errors[t.error] = (errors[t.error] ?? 0) + 1;
  const first = Math.min(...timings.map((t) => t.startMs));
  const last = Math.max(...timings.map((t) => t.startMs + t.e2elMs));
  const durationS = timings.length > 0 ? Math.max(1e-3, (last - first) / 1000) : 0;
  const per = (value: number) => (durationS > 0 ? Math.round((value / durationS) * 100) / 100 : 0);
  const totalInputTokens = ok.reduce((sum, t) => sum + t.inputTokens, 0);
  const totalOutputTokens = ok.reduce((sum, t) => sum + t.outputTokens, 0);
  const hasSlo = Object.keys(slo).length > 0;
  const good = hasSlo ? ok.filter((t) => meets(t, slo)).length : 0;
  return {
    completed: ok.length,
    failed: timings.length - ok.length,
    errors,
    durationS: Math.round(durationS * 1000) / 1000,
    requestThroughput: per(ok.length),
    outputTokensPerS: per(totalOutputTokens),
    totalTokensPerS: per(totalInputTokens + totalOutputTokens),
    totalInputTokens,
    totalOutputTokens,
    tokensEstimated: ok.some((t) => t.estimated),
    ttftMs: spread(ok.flatMap((t) => (t.ttftMs === null ? [] : [t.ttftMs]))),
    tpotMs: spread(ok.flatMap((t) => tpotOf(t) ?? [])),
    itlMs: spread(ok.flatMap((t) => t.itlMs)),
    e2elMs: spread(ok.map((t) => t.e2elMs)),
    goodput: hasSlo ? per(good) : null,
    goodputShare: hasSlo && ok.length > 0 ? Math.round((good / ok.length) * 1000) / 1000 : null,
  };
}
