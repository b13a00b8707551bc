// The proxy scenario (issue 14): the gateway proxying through its openai-compatible backend to an
// instant node:http upstream (auth, holds and billing on, response cache off), and the same load
// sent to the upstream directly, in one run; the Responses API (`/v1/responses`) through the same
// gateway and upstream beside chat completions. Figures: gateway CPU per request (from /proc),
// added latency at one connection, added time to first byte for streams, throughput at 50.
import { loadavg } from 'node:os';
import type { LoadProgress } from '../load/load-client.js';
import { UNIQUE_MARKER } from '../load/load-client.js';
import { ResourceSampler } from '../load/process-sampler.js';
import { runLoadInWorker } from '../load/run-in-worker.js';
import { spawnServer, startGateway, type ServerUnderTest } from '../load/servers.js';
import { toTargetResult, type TargetResult } from '../load/target-result.js';

/** Settings of the proxy scenario. */
export interface ProxySettings {
  durationMs: number;
  warmupMs: number;
  timeoutMs: number;
  /** Connections of the throughput rows (the latency rows use one). */
  connections: number;
  /** Interleaved rounds of the wire formats beside chat (at least {@link MIN_WIRE_ROUNDS}). */
  rounds?: number;
  onProgress?: (label: string, progress: LoadProgress) => void;
}

/** Which wire format a case sends to the gateway (the upstream is always called with chat completions). */
export type ProxyWire = 'chat' | 'responses';

/** One case: a wire format, a mode and a connection count, through the gateway and direct. */
export interface ProxyCase {
  wire: ProxyWire;
  mode: 'json' | 'sse';
  connections: number;
  gateway: TargetResult;
  direct: TargetResult;
  /** Gateway CPU time per completed request, ms. */
  gatewayCpuMsPerRequest: number | null;
}

/** Another wire format over the same completion, measured non-streaming beside chat in the same run. */
export interface WireFormatCase {
  route: string;
  /** Non-streaming, or streamed (chat and Responses only). */
  mode: 'json' | 'sse';
  /** The round with the median throughput. */
  gateway: TargetResult;
  /** Median over the rounds. */
  gatewayCpuMsPerRequest: number | null;
  /** Each round's CPU per request, ms. */
  rounds: number[];
}

/** The fewest interleaved rounds of chat and the other wire formats (`--rounds` asks for more). */
const MIN_WIRE_ROUNDS = 3;

function medianOf(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

/** What the proxy scenario measured. */
export interface ProxyReport {
  scenario: 'proxy';
  settings: { durationS: number; warmupS: number; connections: number };
  cases: ProxyCase[];
  /** `/v1/responses` and `/v1/messages` through the same gateway and upstream, interleaved with chat. */
  wireFormats?: WireFormatCase[];
  /** How many interleaved rounds the wire-format rows are medians of. */
  wireRounds?: number;
}

/** The wire formats measured beside chat: the same prompt and cap in each format's own request. */
const WIRE_FORMATS: { route: string; headers: Record<string, string>; body: string }[] = [
  {
    route: '/v1/responses',
    headers: {},
    body: JSON.stringify({ model: 'pro-1', max_output_tokens: 64, input: `Proxy probe ${UNIQUE_MARKER}` }),
  },
  {
    route: '/v1/messages',
    headers: { 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({
      model: 'pro-1',
      max_tokens: 64,
      messages: [{ role: 'user', content: `Proxy probe ${UNIQUE_MARKER}` }],
    }),
  },
];

/** Gateway CPU per completed request, ms (null without a sample of the gateway). */
function cpuPerRequest(row: TargetResult): number | null {
  if (!row.server || row.requests === 0) return null;
  return Math.round((((row.server.cpuPercent / 100) * row.windowMs) / row.requests) * 1000) / 1000;
}

const body = (wire: ProxyWire, stream: boolean) =>
  wire === 'chat'
    ? JSON.stringify({
        model: 'pro-1',
        messages: [{ role: 'user', content: `Proxy probe ${UNIQUE_MARKER}` }],
        max_tokens: 64,
        ...(stream && { stream: true, stream_options: { include_usage: true } }),
      })
    : JSON.stringify({
        model: 'pro-1',
        input: `Proxy probe ${UNIQUE_MARKER}`,
        max_output_tokens: 64,
        // Stored, as by default: the LMDB write is part of what the wire format costs.
        ...(stream && { stream: true }),
      });

const PATHS: Record<ProxyWire, string> = { chat: '/v1/chat/completions', responses: '/v1/responses' };

async function measure(
  server: ServerUnderTest,
  label: string,
  role: 'ours' | 'baseline',
  wire: ProxyWire,
  mode: 'json' | 'sse',
  connections: number,
  settings: ProxySettings,
  sampled: number | null,
  format?: (typeof WIRE_FORMATS)[number],
): Promise<TargetResult> {
  const sampler = sampled === null ? null : new ResourceSampler(sampled);
  let resources: ReturnType<ResourceSampler['stop']> = null;
  const stats = await runLoadInWorker(
    {
      url: `${server.url}${format?.route ?? PATHS[wire]}`,
      headers: { ...format?.headers, ...(server.token && { authorization: `Bearer ${server.token}` }) },
      body: format?.body ?? body(wire, mode === 'sse'),
      mode,
      connections,
      durationMs: settings.durationMs,
      warmupMs: settings.warmupMs,
      rate: null,
      maxRequests: null,
      timeoutMs: settings.timeoutMs,
    },
    (progress) => {
      if (progress.phase === 'measuring') sampler?.start();
      if (progress.phase === 'done') resources = sampler?.stop() ?? null;
      settings.onProgress?.(label, progress);
    },
  );
  return toTargetResult(label, role, stats, resources, loadavg()[0] ?? 0);
}

/** Runs the proxy scenario: starts the upstream and the gateway (as child processes), loads both. */
export async function runProxyScenario(settings: ProxySettings): Promise<ProxyReport> {
  const upstream = await spawnServer('bench/proxy/instant-upstream-main.ts', {}, /upstream listening on (\d+)/);
  const direct: ServerUnderTest = {
    url: `http://127.0.0.1:${upstream.port}`,
    token: null,
    sample: upstream.child.pid ?? null,
    close: () => upstream.stop(),
  };
  const gateway = await startGateway({
    env: {
      SVC_BACKEND: 'openai-compatible',
      SVC_UPSTREAM_BASE_URL: `${direct.url}/v1`,
      SVC_UPSTREAM_MODEL: 'instant',
      SVC_UPSTREAM_API_KEY: 'sk-bench-upstream',
      SVC_CHAT_CACHE_TTL_S: '0',
    },
  });
  const cases: ProxyCase[] = [];
  const wireFormats: WireFormatCase[] = [];
  const wireRounds = Math.max(MIN_WIRE_ROUNDS, settings.rounds ?? 0);
  try {
    for (const [wire, mode, connections] of [
      ['chat', 'json', settings.connections],
      ['responses', 'json', settings.connections],
      ['chat', 'json', 1],
      ['chat', 'sse', settings.connections],
      ['responses', 'sse', settings.connections],
      ['chat', 'sse', 1],
    ] as const) {
      const through = await measure(
        gateway,
        `svc gateway ${wire} (${mode}, ${connections} conn.)`,
        'ours',
        wire,
        mode,
        connections,
        settings,
        gateway.sample === 'self' ? null : gateway.sample,
      );
      // The upstream speaks chat only: a Responses row shares the chat row's direct baseline.
      const shared = wire === 'responses' && cases.find((c) => c.mode === mode && c.connections === connections);
      const straight = shared
        ? shared.direct
        : await measure(
            direct,
            `upstream direct (${mode}, ${connections} conn.)`,
            'baseline',
            'chat',
            mode,
            connections,
            settings,
            null,
          );
      cases.push({
        wire,
        mode,
        connections,
        gateway: through,
        direct: straight,
        gatewayCpuMsPerRequest: cpuPerRequest(through),
      });
      // The other wire formats right after chat's row of the same mode, interleaved with chat again
      // for `rounds` rounds (a shared machine drifts between rows): medians of the same gateway and load.
      if (wire === 'chat' && connections === settings.connections) {
        const sampled = gateway.sample === 'self' ? null : gateway.sample;
        const entries =
          mode === 'json'
            ? [undefined, ...WIRE_FORMATS].map((format) => ({ wire: 'chat' as const, format }))
            : (['chat', 'responses'] as const).map((sseWire) => ({ wire: sseWire, format: undefined }));
        const rounds = new Map<string, TargetResult[]>();
        for (let round = 0; round < wireRounds; round++)
          for (const { wire: rowWire, format } of entries) {
            const route = format?.route ?? PATHS[rowWire];
            const label = `svc gateway ${route} (${mode}, ${connections} conn., round ${round + 1})`;
            const row = await measure(gateway, label, 'ours', rowWire, mode, connections, settings, sampled, format);
            rounds.set(route, [...(rounds.get(route) ?? []), row]);
          }
        for (const [route, rows] of rounds) {
          const cpus = rows.map(cpuPerRequest).filter((cpu): cpu is number => cpu !== null);
          const median = [...rows].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[rows.length >> 1]!;
          wireFormats.push({ route, mode, gateway: median, gatewayCpuMsPerRequest: medianOf(cpus), rounds: cpus });
        }
      }
    }
  } finally {
    await gateway.close();
    await direct.close();
  }
  return {
    scenario: 'proxy',
    settings: {
      durationS: settings.durationMs / 1000,
      warmupS: settings.warmupMs / 1000,
      connections: settings.connections,
    },
    cases,
    wireFormats,
    wireRounds,
  };
}

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
      `gateway CPU per non-streaming request (${report.settings.connections} conn.)`,
      json50?.gatewayCpuMsPerRequest,
      0.15,
      'ms',
    ),
    check(
      `gateway CPU per 20-chunk stream (${report.settings.connections} conn.)`,
      sse50?.gatewayCpuMsPerRequest,
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
    ...wireFormatRows(report),
  ].join('\n');
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
