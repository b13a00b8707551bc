// Cells shared by the realtime scenarios' Markdown tables.
import type { LatencySummary } from '../load/histogram.js';
import { isClientBound, type ThreadLoad } from './thread-meter.js';

/** Milliseconds with precision that shrinks as they grow. */
export const ms = (value: number) =>
  value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);

/** An integer with thousands separators. */
export const int = (value: number) => Math.round(value).toLocaleString('en-US');

/** `p50 / p99` of a summary, or – when it is empty. */
export const p50p99 = (summary: LatencySummary | null) =>
  summary && summary.count ? `${ms(summary.p50)} / ${ms(summary.p99)}` : '–';

/** Each client thread's CPU %, marked when it was saturated. */
export function clientCell(loads: ThreadLoad[]): string {
  const cells = loads.map((load) => `${load.cpuPercent ?? '–'} (ELU ${load.eventLoopUtilization.toFixed(2)})`);
  return `${cells.join(' + ')}${loads.some(isClientBound) ? ' **client-bound**' : ''}`;
}

/** One line per error kind with its first sample. */
export function errorLines(name: string, errors: Record<string, number>, samples: Record<string, string>): string[] {
  return Object.entries(errors).map(
    ([kind, count]) => `- ${name}: ${kind} × ${int(count)} (first: ${(samples[kind] ?? '').slice(0, 160)})`,
  );
}

/** Errors as `kind×n, …`, or 0. */
export function errorCell(errors: Record<string, number>): string {
  const entries = Object.entries(errors);
  return entries.length ? entries.map(([kind, count]) => `${kind}×${int(count)}`).join(', ') : '0';
}
