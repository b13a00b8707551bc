import type { MediaReport } from './media-bench.js';

const dash = (value: number | null, unit = '') => (value === null ? '–' : `${value.toLocaleString('en-US')}${unit}`);

/** The media figures as markdown tables, each beside its same-run baseline. */
export function formatMedia(report: MediaReport): string {
  const [ours, base] = [
    report.images.find((row) => row.role === 'ours'),
    report.images.find((row) => row.role === 'baseline'),
  ];
  const lines = [
    `### media: images (sim 1024x1024, ${report.concurrency} in flight, ${report.durationMs / 1000} s)`,
    '',
    '| target | images/s | p50 ms | p99 ms | vs baseline | errors |',
    '|---|---:|---:|---:|---|---:|',
  ];
  for (const row of report.images) {
    const versus =
      row.role === 'baseline'
        ? '(baseline)'
        : base && ours
          ? `${Math.round((100 * row.perSecond) / Math.max(base.perSecond, 1e-6))} % of the baseline`
          : '';
    lines.push(`| ${row.name} | ${row.perSecond} | ${row.p50Ms} | ${row.p99Ms} | ${versus} | ${row.errors} |`);
  }
  lines.push(
    '',
    `### media: video jobs held by one process (held ${report.holdMs / 1000} s, polled every ${report.pollMs} ms)`,
    '',
  );
  lines.push(
    '| target | jobs | created/s | running | RSS before → after MiB | KiB per job | CPU % while held | errors |',
    '|---|---:|---:|---|---:|---:|---:|---:|',
  );
  for (const row of report.videoJobs) {
    lines.push(
      `| ${row.name} | ${row.jobs} | ${dash(row.createdPerSecond)} | ${row.runningChecked} | ${dash(row.rssMbBefore)} → ${dash(row.rssMbAfter)} | ${dash(row.kbPerJob)} | ${dash(row.cpuPercent)} | ${row.errors} |`,
    );
  }
  return lines.join('\n');
}
