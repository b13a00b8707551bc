// Markdown of sse-hold: streams opened and held per target, server memory per stream, whether
// every stream still delivered, and the figures beside their targets.
import { clientCell, errorCell, errorLines, int, ms, p50p99 } from '../realtime/table-cells.js';
import type { HoldReport, HoldRow } from './sse-hold.js';

/** The design target: this many open streams in one server process, under 1 GiB of RSS, all delivering. */
const TARGET_STREAMS = 18_000;
const TARGET_MB = 1024;

function label(row: HoldRow): string {
  return row.role === 'baseline' ? `${row.name} (baseline)` : row.name;
}

function serverCells(row: HoldRow): string[] {
  const s = row.server;
  if (!s) return ['–', '–', '–', '–'];
  const cpu = `${s.whileOpening?.cpuPercent ?? '–'} / ${s.whileHeld?.cpuPercent ?? '–'}`;
  return [`${s.rssMbBefore} → ${s.rssMbHeldMax}`, `${s.rssKbPerStream}`, `${s.rssMbAfterAbort ?? '–'}`, cpu];
}

function mainTable(report: HoldReport): string[] {
  const lines = [
    '| target | opened | failed | errors | first byte p50 / p99 ms | opening s | server RSS MB before → held (max) | RSS KB per stream | RSS MB after abort | server CPU % opening / held | delivering in last 3 s | events/s held | abort ms | new stream after abort ms | client CPU % opening · held |',
    '|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const row of report.rows) {
    lines.push(
      `| ${label(row)} | ${int(row.opened)} / ${int(row.streams)} | ${int(row.failed)} | ${errorCell(row.errors)} | ${p50p99(row.openMs)} | ${row.openSeconds} | ${serverCells(row).join(' | ')} | ` +
        `${int(row.delivering)} / ${int(row.streams)} | ${int(row.eventsPerSecond)} | ${int(row.abortMs)} | ${row.answersAfterAbortMs === null ? 'no answer' : ms(row.answersAfterAbortMs)} | ${clientCell([row.clientWhileOpening])} · ${clientCell([row.clientWhileHeld])} |`,
    );
  }
  return lines;
}

function figureLines(report: HoldReport): string[] {
  const ours = report.rows.find((row) => row.role === 'ours');
  if (!ours) return [];
  const bare = report.rows.find((row) => row.role === 'baseline');
  const lines = ['', '| figure | measured | target |', '|---|---:|---|'];
  if (ours.server) {
    const { rssMbBefore, rssMbHeldMax, rssKbPerStream } = ours.server;
    const projected = rssMbBefore + (rssKbPerStream * TARGET_STREAMS) / 1024;
    const full = ours.opened === TARGET_STREAMS;
    const at = full
      ? `${rssMbHeldMax} MB with ${int(ours.opened)} streams`
      : `${Math.round(projected)} MB projected from ${int(ours.opened)} streams (${rssMbHeldMax} MB measured)`;
    const met = (full ? rssMbHeldMax : projected) < TARGET_MB && ours.delivering === ours.streams ? 'met' : 'missed';
    lines.push(
      `| server RSS with ${int(TARGET_STREAMS)} open streams, all delivering | ${at}, ${int(ours.delivering)} delivering | ${int(TARGET_STREAMS)} streams, RSS < 1 GiB, all delivering (${met}) |`,
    );
  }
  lines.push(
    `| streams still delivering in the last 3 s | ${int(ours.delivering)} / ${int(ours.streams)} | all (${ours.delivering === ours.streams ? 'met' : 'missed'}) |`,
  );
  lines.push(
    `| a new stream answers after the mass abort | ${ours.answersAfterAbortMs === null ? 'no' : `yes, ${ms(ours.answersAfterAbortMs)} ms`} | yes |`,
  );
  if (ours.server && bare?.server)
    lines.push(
      `| RSS per stream, ours − bare | ${(ours.server.rssKbPerStream - bare.server.rssKbPerStream).toFixed(1)} KB | – |`,
    );
  return lines;
}

/** The scenario as Markdown. */
export function formatSseHold(report: HoldReport): string {
  const s = report.settings;
  const where = s.target ? `target ${s.target}` : s.inProcess ? 'servers in-process' : 'servers as child processes';
  const title = `### ${report.scenario}: ${int(s.streams)} streaming chat completions at 1 token/s (${s.concurrency} opening at a time) held ${s.holdMs / 1000} s, then all aborted, ${where}`;
  const details = report.rows.flatMap((row) => [
    ...(row.endedEarly ? [`- ${row.name}: ${int(row.endedEarly)} streams ended or broke before the abort`] : []),
    ...errorLines(row.name, row.errors, row.errorSamples),
  ]);
  if (s.inProcess && !s.target)
    details.unshift(
      "- in-process: the RSS is the bench process, the client worker included, so RSS per stream is not the server's alone",
    );
  return [title, '', ...mainTable(report), ...figureLines(report), ...(details.length ? ['', ...details] : [])].join(
    '\n',
  );
}
