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
import { measureDiskFloor, type DiskFloor } from './disk-floor.js';
import { measureSettleFloor } from './settle-floor.js';
import { startOtherGateway, type OtherGateway } from './other-gateway.js';
import { measureOutside, type OutsideFigure } from './outside-wrk.js';

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
export const MIN_WIRE_ROUNDS = 3;

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
  /** One durable LMDB commit (put, then flushed), timed with the gateway idle just before the 1-connection row. */
  diskFloor?: DiskFloor;
  /** The settle's own durable commit (the real Ledger, hold → settle in a row), timed right after the disk floor. */
  settleFloor?: DiskFloor;
  /** The open-source gateway on the same upstream, right after our row of the same mode (or why it is missing). */
  otherGateway?: { name: string; cases: OtherGatewayCase[] } | { skipped: string };
  /** wrk against our gateway, CPU from /proc, once per interleaved non-streaming round (or why it is missing). */
  outside?: (OutsideFigure & { rounds: number[] }) | { skipped: string };
}

/** The other gateway's row of one mode at the throughput rows' connections. */
export interface OtherGatewayCase {
  mode: 'json' | 'sse';
  /** The round with the median throughput. */
  gateway: TargetResult;
  /** Median over the rounds, and each round's. */
  cpuMsPerRequest: number | null;
  rounds: number[];
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
  server: ServerUnderTest & { headers?: Record<string, string> },
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
      headers: {
        ...format?.headers,
        ...server.headers,
        ...(server.token && { authorization: `Bearer ${server.token}` }),
      },
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

/** Medians of a mode's interleaved rounds: the wire formats, the other gateway, wrk from outside. */
interface Interleaved {
  wireFormats: WireFormatCase[];
  other: OtherGatewayCase | null;
  outside: ProxyReport['outside'];
}

async function interleave(run: {
  gateway: ServerUnderTest;
  other: OtherGateway | { skipped: string };
  settings: ProxySettings;
  mode: 'json' | 'sse';
  connections: number;
  rounds: number;
}): Promise<Interleaved> {
  const { gateway, other, settings, mode, connections } = run;
  const sampled = gateway.sample === 'self' ? null : gateway.sample;
  const entries =
    mode === 'json'
      ? [undefined, ...WIRE_FORMATS].map((format) => ({ wire: 'chat' as const, format }))
      : (['chat', 'responses'] as const).map((sseWire) => ({ wire: sseWire, format: undefined }));
  const rounds = new Map<string, TargetResult[]>();
  const otherRows: TargetResult[] = [];
  const outsides: OutsideFigure[] = [];
  let outsideSkipped: string | null = null;
  for (let round = 0; round < run.rounds; round++) {
    for (const { wire: rowWire, format } of entries) {
      const route = format?.route ?? PATHS[rowWire];
      const label = `svc gateway ${route} (${mode}, ${connections} conn., round ${round + 1})`;
      const row = await measure(gateway, label, 'ours', rowWire, mode, connections, settings, sampled, format);
      rounds.set(route, [...(rounds.get(route) ?? []), row]);
    }
    if ('url' in other) {
      const label = `${other.name} chat (${mode}, ${connections} conn., round ${round + 1})`;
      const pid = typeof other.sample === 'number' ? other.sample : null;
      otherRows.push(await measure(other, label, 'baseline', 'chat', mode, connections, settings, pid));
    }
    if (mode === 'json' && typeof sampled === 'number' && gateway.token) {
      const figure = await measureOutside(gateway.url, gateway.token, sampled, settings.durationMs, connections);
      if ('skipped' in figure) outsideSkipped = figure.skipped;
      else outsides.push(figure);
    }
  }
  const byThroughput = (rows: TargetResult[]) =>
    [...rows].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[rows.length >> 1]!;
  const cpus = (rows: TargetResult[]) => rows.map(cpuPerRequest).filter((cpu): cpu is number => cpu !== null);
  const wireFormats = [...rounds].map(([route, rows]) => ({
    route,
    mode,
    gateway: byThroughput(rows),
    gatewayCpuMsPerRequest: medianOf(cpus(rows)),
    rounds: cpus(rows),
  }));
  const outsideCpus = outsides.map((figure) => figure.cpuMsPerRequest);
  const outside: ProxyReport['outside'] =
    outsides.length > 0
      ? {
          requests: outsides.reduce((sum, figure) => sum + figure.requests, 0),
          non2xx: outsides.reduce((sum, figure) => sum + figure.non2xx, 0),
          cpuMsPerRequest: medianOf(outsideCpus)!,
          rounds: outsideCpus,
        }
      : outsideSkipped === null
        ? undefined
        : { skipped: outsideSkipped };
  const otherCase =
    otherRows.length > 0
      ? { mode, gateway: byThroughput(otherRows), cpuMsPerRequest: medianOf(cpus(otherRows)), rounds: cpus(otherRows) }
      : null;
  return { wireFormats, other: otherCase, outside };
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
      SVC_UPSTREAM_CONCURRENCY: '512', // as in the outside measurement
    },
  });
  const other = await startOtherGateway(direct.url);
  const others: OtherGatewayCase[] = [];
  let diskFloor: DiskFloor | undefined;
  let settleFloor: DiskFloor | undefined;
  let outside: ProxyReport['outside'];
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
      if (connections === 1 && mode === 'json') {
        diskFloor = await measureDiskFloor();
        settleFloor = await measureSettleFloor();
      }
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
      // The other wire formats, the other gateway and wrk from outside right after chat's row of the
      // same mode, interleaved with chat again for `rounds` rounds (a shared machine drifts between
      // rows, and every server is warm by its second round): medians of the same upstream and load.
      if (wire === 'chat' && connections === settings.connections) {
        const result = await interleave({ gateway, other, settings, mode, connections, rounds: wireRounds });
        wireFormats.push(...result.wireFormats);
        if (result.other) others.push(result.other);
        outside ??= result.outside;
      }
    }
  } finally {
    await gateway.close();
    if ('url' in other) await other.close();
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
    ...(diskFloor && { diskFloor }),
    ...(settleFloor && { settleFloor }),
    otherGateway: 'url' in other ? { name: other.name, cases: others } : other,
    ...(outside && { outside }),
  };
}
