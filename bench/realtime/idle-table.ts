// Markdown of realtime-idle: calls opened and held per target, server memory per call, and the
// figures beside their targets.
import type { IdleReport, IdleRow } from './realtime-idle.js';
import { clientCell, errorCell, errorLines, int, p50p99 } from './table-cells.js';

/** The design target: this many idle calls in under 1 GiB of server RSS. */
const TARGET_CALLS = 10_000;
const TARGET_MB = 1024;

function label(row: IdleRow): string {
  return row.role === 'baseline' ? `${row.name} (baseline)` : row.name;
}

function mainTable(report: IdleReport): string[] {
  const lines = [
    '| target | opened | errors | connect → session.created p50 / p99 ms | ticket p50 / p99 ms | opening s | calls/s | server RSS MB before → held (max) | RSS KB per call | still answering | ping p50 / p99 ms | client CPU % while opening |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const row of report.rows) {
    const server = row.server
      ? [`${row.server.rssMbBefore} → ${row.server.rssMbHeldMax}`, `${row.server.rssKbPerCall}`]
      : ['–', '–'];
    lines.push(
      `| ${label(row)} | ${int(row.opened)} / ${int(row.calls)} | ${errorCell(row.errors)} | ${p50p99(row.connectMs)} | ${p50p99(row.ticketMs)} | ${row.openSeconds} | ${int(row.openedPerSecond)} | ${server.join(' | ')} | ${int(row.answered)} / ${int(row.calls)} | ${p50p99(row.pingMs)} | ${clientCell(row.clientWhileOpening)} |`,
    );
  }
  return lines;
}

function figureLines(report: IdleReport): string[] {
  const ours = report.rows.find((row) => row.role === 'ours');
  if (!ours) return [];
  const bare = report.rows.find((row) => row.role === 'baseline');
  const lines = ['', '| figure | measured | target |', '|---|---:|---|'];
  if (ours.server) {
    const { rssMbBefore, rssMbHeldMax, rssKbPerCall } = ours.server;
    const projected = rssMbBefore + (rssKbPerCall * TARGET_CALLS) / 1024;
    const met = projected < TARGET_MB ? 'met' : 'missed';
    const at =
      ours.opened === TARGET_CALLS
        ? `${rssMbHeldMax} MB with ${int(ours.opened)} calls`
        : `${Math.round(projected)} MB projected from ${int(ours.opened)} calls (${rssMbHeldMax} MB measured)`;
    lines.push(`| server RSS with ${int(TARGET_CALLS)} idle calls | ${at} | < 1 GiB (${met}) |`);
  }
  lines.push(
    `| calls still answering at the end | ${int(ours.answered)} / ${int(ours.calls)} | all (${ours.answered === ours.calls ? 'met' : 'missed'}) |`,
  );
  if (ours.server && bare?.server) {
    lines.push(
      `| RSS per call, ours − bare | ${(ours.server.rssKbPerCall - bare.server.rssKbPerCall).toFixed(1)} KB | – |`,
    );
    lines.push(
      `| opening rate, ours ÷ bare | ${bare.openedPerSecond ? Math.round((ours.openedPerSecond / bare.openedPerSecond) * 100) : '–'} % | – |`,
    );
  }
  return lines;
}

/** The scenario as Markdown. */
export function formatIdle(report: IdleReport): string {
  const s = report.settings;
  const where = s.target ? `target ${s.target}` : s.inProcess ? 'servers in-process' : 'servers as child processes';
  const title = `### ${report.scenario}: ${int(s.calls)} idle calls (${s.concurrency} opening at a time) held ${s.holdMs / 1000} s, then one session.update each, ${where}`;
  const details = report.rows.flatMap((row) => errorLines(row.name, row.errors, row.errorSamples));
  if (s.inProcess && !s.target)
    details.unshift(
      "- in-process: the RSS is the bench process, client workers included, so RSS per call is not the server's alone",
    );
  return [title, '', ...mainTable(report), ...figureLines(report), ...(details.length ? ['', ...details] : [])].join(
    '\n',
  );
}
