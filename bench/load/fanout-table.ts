// Markdown tables of the session-fanout scenario: delivery latency and completeness per target,
// server memory per follower, then the figures against the bare uWS fan-out.
import type { FanoutReport, FanoutRow } from './session-fanout.js';

const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));
const int = (value: number) => Math.round(value).toLocaleString('en-US');

function label(row: FanoutRow): string {
  return row.role === 'baseline' ? `${row.name} (baseline)` : row.name;
}

function completeness(row: FanoutRow): string {
  if (row.complete) return `yes: all got 1…${row.finalSeq}`;
  const o = row.order;
  const problems = [
    row.ready < row.followers ? `${row.followers - row.ready} not ready` : '',
    o.followersWithProblems
      ? `${o.followersWithProblems} with gaps ${o.gaps} / dups ${o.duplicates} / out of order ${o.outOfOrder} / bad ${o.bad}`
      : '',
    o.lastSeq.min !== row.finalSeq || o.lastSeq.max !== row.finalSeq
      ? `last seq ${o.lastSeq.min}…${o.lastSeq.max} of ${row.finalSeq}`
      : '',
    Object.keys(row.errors).length
      ? `errors ${Object.entries(row.errors)
          .map(([k, v]) => `${k}×${v}`)
          .join(', ')}`
      : '',
  ].filter(Boolean);
  return `NO: ${problems.join('; ')}`;
}

function serverCells(row: FanoutRow): string[] {
  const s = row.server;
  if (!s) return ['–', '–', '–'];
  const max = s.during ? ` (max ${s.during.rssMbMax})` : '';
  return [
    `${s.rssMbBefore} → ${s.rssMbReady}${max}`,
    `${s.rssKbPerFollower}`,
    s.during ? `${s.during.cpuPercent}` : '–',
  ];
}

function mainTable(report: FanoutReport): string[] {
  const lines = [
    '| target | ready | every event, in order | live events | delivery p50 ms | p90 | p99 | p99.9 | max | last follower p50 / p99 ms | connect p50 / p99 ms | server RSS MB before → ready | RSS KB per follower | server CPU % | client CPU % |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const row of report.rows) {
    const l = row.latencyMs;
    const saturated = (row.client.cpuPercent ?? 0) >= 85 || row.client.eventLoopUtilization >= 0.9;
    lines.push(
      `| ${label(row)} | ${int(row.ready)} / ${int(row.followers)} | ${completeness(row)} | ${row.liveEvents} | ${ms(l.p50)} | ${ms(l.p90)} | ${ms(l.p99)} | ${ms(l.p999)} | ${ms(l.max)} | ` +
        `${ms(row.eventReachMs.p50)} / ${ms(row.eventReachMs.p99)} | ${ms(row.connectMs.p50)} / ${ms(row.connectMs.p99)} | ${serverCells(row).join(' | ')} | ${row.client.cpuPercent ?? '–'}${saturated ? ' (client-bound)' : ''} |`,
    );
  }
  return lines;
}

function figureLines(report: FanoutReport): string[] {
  const ours = report.rows.find((r) => r.role === 'ours');
  const bare = report.rows.find((r) => r.role === 'baseline');
  if (!ours || !bare) return [];
  const lines = ['', '| figure | measured |', '|---|---:|'];
  lines.push(`| added delivery p50 (ours − bare) | ${(ours.latencyMs.p50 - bare.latencyMs.p50).toFixed(2)} ms |`);
  lines.push(`| added delivery p99 (ours − bare) | ${(ours.latencyMs.p99 - bare.latencyMs.p99).toFixed(2)} ms |`);
  lines.push(
    `| last follower p50, ours ÷ bare | ${bare.eventReachMs.p50 > 0 ? (ours.eventReachMs.p50 / bare.eventReachMs.p50).toFixed(1) : '–'}× |`,
  );
  if (ours.server && bare.server)
    lines.push(
      `| server RSS per follower, ours − bare | ${(ours.server.rssKbPerFollower - bare.server.rssKbPerFollower).toFixed(1)} KB |`,
    );
  return lines;
}

function detailLines(report: FanoutReport): string[] {
  const lines = ['', `stream: ${report.rows[0]?.stream ?? '–'}`];
  for (const row of report.rows) {
    if (row.roundsP50Ms)
      lines.push(
        `- ${row.name}: delivery p50 of each round: ${row.roundsP50Ms.map(ms).join(', ')} ms (median round shown)`,
      );
    if (row.order.firstProblem) lines.push(`- ${row.name}: first problem: ${row.order.firstProblem}`);
    for (const [kind, count] of Object.entries(row.errors))
      lines.push(`- ${row.name}: ${kind} × ${count} (first: ${(row.errorSamples[kind] ?? '').slice(0, 160)})`);
  }
  return lines;
}

/** The scenario as Markdown. */
export function formatFanout(report: FanoutReport): string {
  const s = report.settings;
  const where = s.target ? `target ${s.target}` : s.inProcess ? 'servers in-process' : 'servers as child processes';
  const rounds = (s.rounds ?? 1) > 1 ? `, median of ${s.rounds} rounds` : '';
  const title = `### ${report.scenario}: ${int(s.followers)} SSE followers of one session, approve then ${s.inputs} live inputs ${s.inputGapMs} ms apart then cancel, ${where}${rounds}`;
  return [title, '', ...mainTable(report), ...figureLines(report), ...detailLines(report)].join('\n');
}
