// Markdown tables of a load scenario: one row per target, the direct backend call, then every
// derived figure beside its target.
import { cpus } from 'node:os';
import type { Check } from './checks.js';
import type { LatencySummary } from './histogram.js';
import type { ScenarioReport } from './scenarios.js';
import type { TargetResult } from './target-result.js';

const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(3));
const int = (value: number) => Math.round(value).toLocaleString('en-US');
const sum = (errors: Record<string, number>) => Object.values(errors).reduce((a, b) => a + b, 0);

function label(row: TargetResult): string {
  return row.role === 'baseline' ? `${row.name} (baseline)` : row.name;
}

function resources(row: TargetResult): string[] {
  const server = row.server;
  // A client thread this busy set the pace itself: the server could have done more.
  const saturated = (row.client.cpuPercent ?? 0) >= 85 || row.client.eventLoopUtilization >= 0.9;
  const client = `${row.client.cpuPercent ?? '–'}${saturated ? ' (client-bound)' : ''}`;
  return [server ? `${server.cpuPercent}` : '–', server ? `${server.rssMbStart} → ${server.rssMbMax}` : '–', client];
}

function latencyCells(summary: LatencySummary): string[] {
  return [ms(summary.p50), ms(summary.p90), ms(summary.p99), ms(summary.p999), ms(summary.max)];
}

function title(report: ScenarioReport): string {
  const s = report.settings;
  const how = s.rate !== null ? `paced at ${int(s.rate)} req/s` : 'closed loop';
  const where = s.target
    ? `, target ${s.target}`
    : s.inProcess
      ? ', servers in-process'
      : ', servers as child processes';
  const rounds = s.rounds > 1 ? `, median of ${s.rounds} rounds` : '';
  const prompts = s.repeatPrompt ? ', same prompt every request (cache hits)' : '';
  return `${report.scenario}: ${s.connections} connections, ${s.durationS} s after ${s.warmupS} s warm-up, ${how}${where}${rounds}${prompts}`;
}

function mainTable(report: ScenarioReport): string[] {
  const stream = report.chunks !== null;
  const lines = [
    `| target | ${stream ? 'streams/s' : 'req/s'} | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | errors | server CPU % | server RSS MB | client CPU % |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const row of report.rows) {
    if (row.status !== 'ok') {
      lines.push(`| ${label(row)} | ${row.status}: ${row.note ?? ''} | | | | | | | | | |`);
      continue;
    }
    lines.push(
      `| ${label(row)} | ${int(row.requestsPerSecond)} | ${latencyCells(row.latencyMs).join(' | ')} | ${int(sum(row.errors))} | ${resources(row).join(' | ')} |`,
    );
  }
  const loads = report.rows.flatMap((row) => (row.hostLoad1m === null ? [] : [row.hostLoad1m]));
  const d = report.direct;
  if (d)
    lines.push(`| ${d.name} | ${int(d.callsPerSecond)} | ${latencyCells(d.latencyMs).join(' | ')} | 0 | – | – | – |`);
  if (loads.length)
    lines.push('', `host load average (1 min) at the end of each run: ${loads.join(', ')} (${cpus().length} cores)`);
  return lines;
}

function streamTable(report: ScenarioReport): string[] {
  const rows = report.rows.filter((row) => row.sse && row.status === 'ok');
  if (!rows.length) return [];
  const lines = [
    '',
    '| target | first byte p50 / p99 ms | event gap p50 / p99 ms | last byte p50 / p99 ms | events per stream (min / mean / max) |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const row of rows) {
    const sse = row.sse!;
    const e = sse.eventsPerStream;
    lines.push(
      `| ${label(row)} | ${ms(sse.ttfbMs.p50)} / ${ms(sse.ttfbMs.p99)} | ${ms(sse.gapMs.p50)} / ${ms(sse.gapMs.p99)} | ${ms(row.latencyMs.p50)} / ${ms(row.latencyMs.p99)} | ${e.min} / ${e.mean} / ${e.max} |`,
    );
  }
  return lines;
}

function checkLine(check: Check): string {
  const value =
    check.value === null
      ? `not measured: ${check.note ?? ''}`
      : `${check.unit === 'ms' ? check.value.toFixed(3) : check.value.toFixed(1)} ${check.unit}`;
  const verdict = check.met === null ? '' : check.met ? ' (met)' : ' (missed)';
  const note = check.value !== null && check.note ? ` (${check.note})` : '';
  return `| ${check.figure} | ${value}${note} | ${check.target ?? '–'}${verdict} |`;
}

function errorLines(report: ScenarioReport): string[] {
  const lines: string[] = [];
  for (const row of report.rows) {
    for (const [kind, count] of Object.entries(row.errors))
      lines.push(`- ${row.name}: ${kind} × ${count} (first: ${(row.errorSamples[kind] ?? '').slice(0, 160)})`);
  }
  return lines.length ? ['', 'errors:', ...lines] : [];
}

/** The scenario as Markdown: title, per-target table, SSE timings, derived figures, errors. */
export function formatScenario(report: ScenarioReport): string {
  const lines = [`### ${title(report)}`, '', ...mainTable(report), ...streamTable(report)];
  if (report.checks.length)
    lines.push('', '| figure | measured | target |', '|---|---:|---|', ...report.checks.map(checkLine));
  lines.push(...errorLines(report));
  return lines.join('\n');
}
