// The proxy scenario's report as Markdown: every row, the figures beside their targets, issue 28's
// table, and the other wire formats beside chat.
import { formatIssueTable } from './issue-table.js';
import { MIN_WIRE_ROUNDS, type ProxyCase, type ProxyReport, type ProxyWire } from './proxy-scenario.js';

const fmt = (n: number, digits = 2) => n.toLocaleString('en-US', { maximumFractionDigits: digits });

/** The proxy report as Markdown, with the issue's targets beside the figures. */
export function formatProxy(report: ProxyReport): string {
  const rows = report.cases.map((c) => {
    const added50 = c.gateway.latencyMs.p50 - c.direct.latencyMs.p50;
    const added99 = c.gateway.latencyMs.p99 - c.direct.latencyMs.p99;
    const ttfb = c.gateway.sse && c.direct.sse ? fmt(c.gateway.sse.ttfbMs.p50 - c.direct.sse.ttfbMs.p50, 3) : '–';
    return `| ${c.wire} | ${c.mode} | ${c.connections} | ${fmt(c.direct.requestsPerSecond, 0)} | ${fmt(c.gateway.requestsPerSecond, 0)} | ${c.gatewayCpuMsPerRequest ?? '–'} | ${fmt(added50, 3)} / ${fmt(added99, 3)} | ${ttfb} | ${c.gateway.server ? `${c.gateway.server.rssMbStart} → ${c.gateway.server.rssMbMax}` : '–'} | ${Object.keys(c.gateway.errors).length ? JSON.stringify(c.gateway.errors) : 0} |`;
  });
  const pick = (mode: string, connections: number, wire: ProxyWire = 'chat') =>
    report.cases.find((c) => c.wire === wire && c.mode === mode && c.connections === connections);
  const json50 = pick('json', report.settings.connections);
  const json1 = pick('json', 1);
  const sse50 = pick('sse', report.settings.connections);
  const sse1 = pick('sse', 1);
  const ratio = (chat: ProxyCase | undefined, responses: ProxyCase | undefined) =>
    chat?.gatewayCpuMsPerRequest && responses?.gatewayCpuMsPerRequest
      ? (responses.gatewayCpuMsPerRequest / chat.gatewayCpuMsPerRequest - 1) * 100
      : null;
  const interleaved = (mode: 'json' | 'sse') =>
    wireRatio(report, mode) === null ? ', single rows' : `, medians of ${report.wireRounds} interleaved rounds`;
  // The first row of a mode runs on a cold process (JIT): chat's interleaved rounds are the figure.
  const warmLabel = (mode: 'json' | 'sse') =>
    warmCpu(report, mode) === null ? ', first row' : `, median of ${report.wireRounds} interleaved rounds`;
  const check = (label: string, value: number | null | undefined, target: number, unit: string) =>
    `| ${label} | ${value === null || value === undefined ? '–' : `${fmt(value, 3)} ${unit}`} | ≤ ${target} ${unit} (${value !== null && value !== undefined && value <= target ? 'met' : 'missed'}) |`;
  return [
    `### proxy: gateway → instant node:http upstream vs the upstream direct (${report.settings.durationS} s per row after ${report.settings.warmupS} s warm-up)`,
    '',
    '| wire | mode | connections | direct req/s | gateway req/s | gateway CPU ms / request | added latency p50 / p99 ms | added first byte p50 ms | gateway RSS MB | errors |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    '| figure | measured | target |',
    '|---|---|---|',
    check(
      `gateway CPU per non-streaming request (${report.settings.connections} conn.${warmLabel('json')})`,
      warmCpu(report, 'json') ?? json50?.gatewayCpuMsPerRequest,
      0.15,
      'ms',
    ),
    check(
      `gateway CPU per 20-chunk stream (${report.settings.connections} conn.${warmLabel('sse')})`,
      warmCpu(report, 'sse') ?? sse50?.gatewayCpuMsPerRequest,
      0.3,
      'ms',
    ),
    check(
      'added latency p50, 1 connection',
      json1 ? json1.gateway.latencyMs.p50 - json1.direct.latencyMs.p50 : null,
      0.3,
      'ms',
    ),
    check(
      'added latency p99, 1 connection',
      json1 ? json1.gateway.latencyMs.p99 - json1.direct.latencyMs.p99 : null,
      1,
      'ms',
    ),
    check(
      'added time to first byte p50, streaming, 1 connection',
      sse1?.gateway.sse && sse1.direct.sse ? sse1.gateway.sse.ttfbMs.p50 - sse1.direct.sse.ttfbMs.p50 : null,
      0.5,
      'ms',
    ),
    check(
      `Responses API CPU per request over chat, JSON (${report.settings.connections} conn.${interleaved('json')})`,
      wireRatio(report, 'json') ?? ratio(json50, pick('json', report.settings.connections, 'responses')),
      10,
      '%',
    ),
    check(
      `Responses API CPU per stream over chat, SSE (${report.settings.connections} conn.${interleaved('sse')})`,
      wireRatio(report, 'sse') ?? ratio(sse50, pick('sse', report.settings.connections, 'responses')),
      10,
      '%',
    ),
    '',
    ...formatIssueTable(report),
    ...wireFormatRows(report),
  ].join('\n');
}

/** Chat's CPU per request, median of the interleaved rounds of `mode`; null without them. */
function warmCpu(report: ProxyReport, mode: 'json' | 'sse'): number | null {
  return (
    report.wireFormats?.find((w) => w.route === '/v1/chat/completions' && w.mode === mode)?.gatewayCpuMsPerRequest ??
    null
  );
}

/** `/v1/responses` CPU per request over chat's in the interleaved rounds of `mode`, in %; null without them. */
function wireRatio(report: ProxyReport, mode: 'json' | 'sse'): number | null {
  const cpu = (route: string) =>
    report.wireFormats?.find((w) => w.route === route && w.mode === mode)?.gatewayCpuMsPerRequest ?? null;
  const chat = cpu('/v1/chat/completions');
  const responses = cpu('/v1/responses');
  return chat && responses !== null ? (responses / chat - 1) * 100 : null;
}

/** Each other wire format's CPU per request beside chat's (same run): at most 10 % more. */
function wireFormatRows(report: ProxyReport): string[] {
  return (['json', 'sse'] as const).flatMap((mode) => wireFormatTable(report, mode));
}

function wireFormatTable(report: ProxyReport, mode: 'json' | 'sse'): string[] {
  const formats = (report.wireFormats ?? []).filter((w) => w.mode === mode);
  const chatCpu = formats.find((w) => w.route === '/v1/chat/completions')?.gatewayCpuMsPerRequest ?? null;
  if (formats.length === 0) return [];
  const rounds = report.wireRounds ?? MIN_WIRE_ROUNDS;
  return [
    `| wire format (${mode === 'json' ? 'non-streaming' : 'streaming'}, ${report.settings.connections} conn., median of ${rounds} interleaved rounds) | gateway req/s | gateway CPU ms / request (each round) | ÷ chat completions | target |`,
    '|---|---|---|---|---|',
    ...formats.map((w) => {
      const ratio = w.gatewayCpuMsPerRequest !== null && chatCpu ? w.gatewayCpuMsPerRequest / chatCpu : null;
      const errors = Object.keys(w.gateway.errors).length ? ` (errors ${JSON.stringify(w.gateway.errors)})` : '';
      const target =
        w.route === '/v1/chat/completions' ? '' : `≤ 1.1 (${ratio !== null && ratio <= 1.1 ? 'met' : 'missed'})`;
      return `| ${w.route} | ${fmt(w.gateway.requestsPerSecond, 0)}${errors} | ${w.gatewayCpuMsPerRequest ?? '–'} (${w.rounds.join(', ')}) | ${ratio === null ? '–' : fmt(ratio, 3)} | ${target} |`;
    }),
    '',
  ];
}
