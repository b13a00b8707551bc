import type { ServeReport } from './serve-scenario.js';

const FIGURES = ['ttftMs', 'tpotMs', 'itlMs', 'e2elMs'] as const;
const STATS = ['mean', 'p50', 'p90', 'p99'] as const;

function cell(value: string | number | boolean | null): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The summary of every sweep point as CSV, one row per point (ms and per-second figures). */
export function serveCsv(report: ServeReport): string {
  const header = [
    report.options.mode,
    'completed',
    'failed',
    'duration_s',
    'request_throughput',
    'output_tokens_per_s',
    'total_tokens_per_s',
    'tokens_estimated',
    ...FIGURES.flatMap((figure) => STATS.map((stat) => `${figure.replace('Ms', '')}_${stat}_ms`)),
    'goodput',
    'goodput_share',
    'errors',
    'client_event_loop_utilization',
    'server_cpu_percent',
    'server_rss_mb_max',
  ];
  const rows = report.points.map(({ x, figures, client, server }) => [
    x,
    figures.completed,
    figures.failed,
    figures.durationS,
    figures.requestThroughput,
    figures.outputTokensPerS,
    figures.totalTokensPerS,
    figures.tokensEstimated,
    ...FIGURES.flatMap((figure) => STATS.map((stat) => figures[figure]?.[stat] ?? null)),
    figures.goodput,
    figures.goodputShare,
    Object.entries(figures.errors)
      .map(([kind, count]) => `${kind}=${count}`)
      .join(' '),
    client.eventLoopUtilization,
    server?.cpuPercent ?? null,
    server?.rssMbMax ?? null,
  ]);
  return `${[header, ...rows].map((row) => row.map(cell).join(',')).join('\n')}\n`;
}
