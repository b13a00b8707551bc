// `npm run bench` runs the micro benchmarks, the actor host benchmarks and every load scenario
// with short defaults, prints tables and writes bench/results/<timestamp>.json (machine, Node,
// commit, every figure).
//   npm run bench -- --scenario chat --connections 64 --duration 10 [--target URL --token T] [--json]
//   --scenario all | micro | accounts | host | load | chat | chat-latency | chat-stream | chat-stream-latency | session-fanout | sse-hold | upload | search | realtime-idle | realtime-active | audio | media (comma-separated)
//   --connections N (32; session-fanout: followers, 1000; sse-hold: streams, 18000; realtime-idle: calls, 10000; realtime-active: calls, 500; audio: transcriptions in flight, 4)
//   --requests N (audio: sequential requests per speech and transcription figure, 10)
//   --jobs N (media: video jobs created and held by one process, 2000; --connections = image requests in flight, 4)
//   --duration S (5; sse-hold and realtime-idle: hold, 10; realtime-active: measured after the ramp, 10)  --warmup S (1)  --rate R (*-latency: paced, 100 req/s)
//   --rounds N (1: interleaved runs, median kept)  --timeout S (10, per request)
//   --baselines all | none | uws,node-http,uws-sse,uws-fanout,uws-sink,uws-ws-idle,uws-ws-audio,uws-sse-hold   --in-process   --time MS (micro and host, 1000)
//   --client-threads N (realtime-*: client worker threads; 1 on two cores, else 2; serve: 1)
//   --repeat-prompt (same prompt every request: measures the response-cache hit path)
//   --rehydrate N (host: parked sessions written then rehydrated, 100000; 0 skips)
//   --inputs N (session-fanout: live inputs sent while the followers watch, 50)
//   --bytes N (upload: bytes uploaded in 8 MiB parts, 1 GiB; --connections = parts in flight, 4)
//   --files N (search: files in the synthetic corpus, 10000)  --queries N (search: 2000)
//   --takeovers N (cluster: SIGKILLs of node 1, 3)  --lease MS (cluster: SVC_CLUSTER_LEASE_MS of the 3 nodes, 1500)
//   serve (LLM-serving figures for any OpenAI-compatible endpoint; bench/README.md): --target URL --token T --model M
//     --api chat|responses  --concurrency 1,4,16,64 | --rate 2,5,10 [--burstiness 1] [--max-concurrency N]
//     --requests N | --duration S (per point)  --input-tokens MEAN,SD (256,64)  --output-tokens MEAN,SD (64,16)
//     --server-pid PID (a --target on this machine: its CPU and RSS in the report)  --client-threads N (1)
//     --prompts FILE.jsonl  --ignore-eos  --slo ttft=MS,tpot=MS,e2el=MS  --timeout S (120, per request)  --seed N (1)
import { execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { formatHost } from './host/host-table.js';
import { formatProxy } from './proxy/proxy-format.js';
import { runProxyScenario, type ProxyReport } from './proxy/proxy-scenario.js';
import { formatSoak, runSoakScenario, type SoakReport } from './proxy/soak-scenario.js';
import { runHostBench, type HostReport } from './host/run-host.js';
import { formatFanout } from './load/fanout-table.js';
import { createProgressLine } from './load/progress-line.js';
import { formatScenario } from './load/report-table.js';
import { FANOUT_SCENARIO, runSessionFanout, type FanoutReport } from './load/session-fanout.js';
import { formatSseHold } from './load/sse-hold-table.js';
import { HOLD_SCENARIO, runSseHold, type HoldReport } from './load/sse-hold.js';
import {
  runScenario,
  SCENARIO_NAMES,
  type BaselineId,
  type LoadSettings,
  type ScenarioName,
  type ScenarioReport,
} from './load/scenarios.js';
import { runMicro, type MicroResult } from './micro.js';
import { runAccountsBench } from './accounts/accounts-bench.js';
import { formatUpload, runUploadBench, type UploadReport } from './files/upload-bench.js';
import { benchSearch } from './files/search-bench.js';
import { formatSearch, type SearchReport } from './files/search-table.js';
import { formatActive } from './realtime/active-table.js';
import { formatIdle } from './realtime/idle-table.js';
import { ACTIVE_SCENARIO, runRealtimeActive, type ActiveReport } from './realtime/realtime-active.js';
import { IDLE_SCENARIO, runRealtimeIdle, type IdleReport } from './realtime/realtime-idle.js';
import { runAudioBench, type AudioReport } from './audio/audio-bench.js';
import { formatAudio } from './audio/audio-table.js';
import { runMediaBench, type MediaReport } from './media/media-bench.js';
import { formatMedia } from './media/media-table.js';
import { CLUSTER_SCENARIO, runClusterScenario, type ClusterReport } from './cluster/cluster-scenario.js';
import { formatCluster } from './cluster/cluster-table.js';
import {
  formatServe,
  runServeCommand,
  serveOptionsFromArgs,
  serverPidFromArgs,
  type ServeSummary,
} from './serve/serve-cli.js';
import { SERVE_SCENARIO } from './serve/serve-scenario.js';
import type { ServeOptions } from './serve/serve-options.js';

const { values } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'all' },
    connections: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string', default: '1' },
    rate: { type: 'string' },
    rounds: { type: 'string', default: '1' },
    timeout: { type: 'string' },
    baselines: { type: 'string', default: 'all' },
    target: { type: 'string' },
    token: { type: 'string' },
    'in-process': { type: 'boolean', default: false },
    'repeat-prompt': { type: 'boolean', default: false },
    time: { type: 'string', default: '1000' },
    rehydrate: { type: 'string', default: '100000' },
    inputs: { type: 'string', default: '50' },
    bytes: { type: 'string', default: String(1024 ** 3) },
    files: { type: 'string', default: '10000' },
    queries: { type: 'string', default: '2000' },
    requests: { type: 'string' },
    jobs: { type: 'string', default: '2000' },
    'client-threads': { type: 'string' },
    takeovers: { type: 'string', default: '3' },
    lease: { type: 'string', default: '1500' },
    model: { type: 'string' },
    api: { type: 'string' },
    concurrency: { type: 'string' },
    'max-concurrency': { type: 'string' },
    burstiness: { type: 'string' },
    'input-tokens': { type: 'string' },
    'output-tokens': { type: 'string' },
    prompts: { type: 'string' },
    'ignore-eos': { type: 'boolean', default: false },
    slo: { type: 'string' },
    seed: { type: 'string' },
    'server-pid': { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});

function fail(message: string): never {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}

function positive(name: string, text: string, max: number): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || value > max)
    fail(`--${name} must be a number in (0, ${max}], got ${text}`);
  return value;
}

function commit(): string {
  try {
    return execSync('git rev-parse --short HEAD', { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return 'unknown';
  }
}

function microTable(results: MicroResult[]): string {
  const lines = ['| group | benchmark | ops/s | p50 µs | p99 µs | vs baseline |', '|---|---|---:|---:|---:|---:|'];
  for (const r of results) {
    const base = results.find((b) => b.group === r.group && b.baseline);
    const factor = base ? base.opsPerSecond / r.opsPerSecond : 0;
    const ratio = r.baseline
      ? '(baseline)'
      : !base
        ? ''
        : factor >= 1
          ? `${factor.toFixed(2)}× slower`
          : `${(1 / factor).toFixed(2)}× faster`;
    lines.push(
      `| ${r.group} | ${r.name} | ${r.opsPerSecond.toLocaleString('en-US')} | ${r.p50Us} | ${r.p99Us} | ${ratio} |`,
    );
  }
  return lines.join('\n');
}

const LOAD = [
  ...SCENARIO_NAMES,
  FANOUT_SCENARIO,
  HOLD_SCENARIO,
  'upload',
  'search',
  IDLE_SCENARIO,
  ACTIVE_SCENARIO,
  'proxy',
  'audio',
  'media',
];
const requested = values.scenario
  .split(',')
  .flatMap((name) => (name === 'all' ? ['micro', 'accounts', 'host', ...LOAD] : name === 'load' ? LOAD : [name]));
// Minutes long: only when asked for by name, never part of `all` or `load`.
const ON_REQUEST = ['soak', CLUSTER_SCENARIO, SERVE_SCENARIO];
for (const name of requested)
  if (name !== 'micro' && name !== 'accounts' && name !== 'host' && !LOAD.includes(name) && !ON_REQUEST.includes(name))
    fail(`unknown scenario ${name} (micro, accounts, host, ${LOAD.join(', ')}, load, all, ${ON_REQUEST.join(', ')})`);
if (values.target && !values.token) fail('--target needs --token (an API token of an account with credit)');
if (values.target && !/^https?:\/\//.test(values.target)) fail('--target must be an http(s) URL');
// serve reads --rate, --duration, --timeout and --client-threads its own way (lists, longer bounds):
// the other scenarios' checks of them apply only when another scenario runs too.
const serveOnly = requested.every((name) => name === SERVE_SCENARIO);
const shared = (name: string, text: string, max: number) => (serveOnly ? 1 : positive(name, text, max));
const baselines: BaselineId[] | undefined =
  values.baselines === 'all'
    ? undefined
    : values.baselines === 'none'
      ? []
      : (values.baselines.split(',') as BaselineId[]);

const settings: LoadSettings = {
  // Chat scenarios keep their 10,000-connection cap; the others check their own limits below.
  connections: Math.round(
    positive(
      'connections',
      values.connections ?? '32',
      requested.some((name) => (SCENARIO_NAMES as readonly string[]).includes(name)) ? 10_000 : 100_000,
    ),
  ),
  durationMs: shared('duration', values.duration ?? '5', 3600) * 1000,
  warmupMs: Number(values.warmup) >= 0 ? Number(values.warmup) * 1000 : fail('--warmup must be ≥ 0'),
  rate: shared('rate', values.rate ?? '100', 1_000_000),
  rounds: Math.round(positive('rounds', values.rounds, 20)),
  timeoutMs: shared('timeout', values.timeout ?? '10', 600) * 1000,
  target: values.target ? { url: values.target, token: values.token! } : null,
  inProcess: values['in-process'],
  repeatPrompt: values['repeat-prompt'],
  baselines,
};
let serveOptions: ServeOptions | null = null;
let serverPid: number | null = null;
if (requested.includes(SERVE_SCENARIO)) {
  try {
    serveOptions = serveOptionsFromArgs(values);
    serverPid = serverPidFromArgs(values);
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
}
const wantsFanoutBaseline = !baselines || baselines.includes('uws-fanout');
const wantsUploadBaselines = !baselines || baselines.includes('uws-sink');
const wantsIdleBaseline = !baselines || baselines.includes('uws-ws-idle');
const wantsActiveBaseline = !baselines || baselines.includes('uws-ws-audio');
const wantsHoldBaseline = !baselines || baselines.includes('uws-sse-hold');
// The client threads share the machine with the server: on two cores one client thread, beside one server core.
const clientThreads = Math.round(
  shared('client-threads', values['client-threads'] ?? (cpus().length >= 3 ? '2' : '1'), 8),
);
// The realtime scenarios and sse-hold default to a 10 s hold or window rather than 5 s.
const realtimeDurationMs = shared('duration', values.duration ?? '10', 3600) * 1000;
settings.onProgress = createProgressLine(settings);
const followers = Math.round(positive('connections', values.connections ?? '1000', 100_000));
const rehydrate = Number(values.rehydrate);
if (!Number.isInteger(rehydrate) || rehydrate < 0 || rehydrate > 10_000_000)
  fail(`--rehydrate must be an integer in [0, 10000000], got ${values.rehydrate}`);
const inputs = Number(values.inputs);
if (!Number.isInteger(inputs) || inputs < 0 || inputs > 100_000)
  fail(`--inputs must be an integer in [0, 100000], got ${values.inputs}`);
const step = (text: string) => {
  if (!values.json) process.stderr.write(`${text}\n`);
};

const report: {
  when: string;
  commit: string;
  node: string;
  machine: { cpus: number; cpu: string; memory_gib: number; loadavg_at_start: number[] };
  micro?: MicroResult[];
  accounts?: MicroResult[];
  host?: HostReport;
  load: (
    | ProxyReport
    | SoakReport
    | ClusterReport
    | ServeSummary
    | ScenarioReport
    | FanoutReport
    | HoldReport
    | UploadReport
    | SearchReport
    | IdleReport
    | ActiveReport
    | AudioReport
    | MediaReport
    | { scenario: string; error: string }
  )[];
} = {
  when: new Date().toISOString(),
  commit: commit(),
  node: process.version,
  machine: {
    cpus: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    memory_gib: Math.round(totalmem() / 1024 ** 3),
    loadavg_at_start: loadavg().map((l) => Math.round(l * 100) / 100),
  },
  load: [],
};

const out: string[] = [];
const print = (text: string) => {
  out.push(text);
  if (!values.json) process.stdout.write(`${text}\n\n`);
};
let failed = false;
for (const name of requested) {
  if (name === 'micro') {
    report.micro = await runMicro({ timeMs: Number(values.time) });
    print(`### micro\n\n${microTable(report.micro)}`);
    continue;
  }
  if (name === 'accounts') {
    report.accounts = await runAccountsBench({ timeMs: Number(values.time) });
    print(`### accounts\n\n${microTable(report.accounts)}`);
    continue;
  }
  try {
    if (name === 'host') {
      report.host = await runHostBench(
        { timeMs: Number(values.time), parallel: 1000, burst: 10, followers: 1000, rehydrate },
        step,
      );
      print(formatHost(report.host));
    } else if (name === FANOUT_SCENARIO) {
      step(`${FANOUT_SCENARIO}: ${followers.toLocaleString('en-US')} followers`);
      const result = await runSessionFanout({
        followers,
        inputs,
        inputGapMs: 20,
        tokensPerSecond: 20,
        connectTimeoutMs: Math.max(30_000, settings.timeoutMs),
        timeoutMs: Math.max(60_000, settings.timeoutMs),
        inProcess: settings.inProcess,
        target: settings.target,
        baseline: wantsFanoutBaseline,
        rounds: settings.rounds,
      });
      report.load.push(result);
      print(formatFanout(result));
    } else if (name === HOLD_SCENARIO) {
      const streams = Math.round(positive('connections', values.connections ?? '18000', 100_000));
      step(`${HOLD_SCENARIO}: ${streams.toLocaleString('en-US')} streams`);
      const result = await runSseHold({
        streams,
        holdMs: realtimeDurationMs,
        concurrency: 500,
        openTimeoutMs: Math.max(30_000, settings.timeoutMs),
        inProcess: settings.inProcess,
        target: settings.target,
        baseline: wantsHoldBaseline,
        onStep: step,
      });
      report.load.push(result);
      print(formatSseHold(result));
    } else if (name === 'proxy') {
      step('proxy: gateway and direct, json and sse, 50 and 1 connections');
      const result = await runProxyScenario({
        durationMs: settings.durationMs,
        warmupMs: settings.warmupMs,
        timeoutMs: settings.timeoutMs,
        connections: Math.round(positive('connections', values.connections ?? '50', 10_000)),
        rounds: settings.rounds,
        ...(settings.onProgress && { onProgress: settings.onProgress }),
      });
      report.load.push(result);
      print(formatProxy(result));
    } else if (name === 'soak') {
      const result = await runSoakScenario({
        requests: Math.round(positive('requests', values.requests ?? '200000', 10_000_000)),
        slice: 10_000,
        connections: Math.round(positive('connections', values.connections ?? '50', 10_000)),
        restMs: positive('duration', values.duration ?? '30', 3600) * 1000,
        timeoutMs: settings.timeoutMs,
        onStep: step,
      });
      report.load.push(result);
      print(formatSoak(result));
    } else if (name === CLUSTER_SCENARIO) {
      const result = await runClusterScenario({
        connections: Math.round(positive('connections', values.connections ?? '32', 1_000)),
        durationMs: settings.durationMs,
        warmupMs: settings.warmupMs,
        timeoutMs: settings.timeoutMs,
        crossSessions: 30,
        crossLanes: 3,
        takeovers: Math.round(positive('takeovers', values.takeovers, 20)),
        leaseMs: Math.round(positive('lease', values.lease, 600_000)),
        onStep: step,
        ...(settings.onProgress && { onProgress: settings.onProgress }),
      });
      report.load.push(result);
      print(formatCluster(result));
    } else if (name === SERVE_SCENARIO) {
      const result = await runServeCommand(serveOptions!, {
        inProcess: settings.inProcess,
        quiet: values.json,
        serverPid,
        onStep: step,
      });
      report.load.push(result);
      print(formatServe(result));
    } else if (name === 'audio') {
      const result = await runAudioBench({
        requests: Math.round(positive('requests', values.requests ?? '10', 1000)),
        concurrency: Math.round(positive('connections', values.connections ?? '4', 256)),
        durationMs: settings.durationMs,
        inProcess: settings.inProcess,
        target: settings.target,
        onStep: step,
      });
      report.load.push(result);
      print(formatAudio(result));
    } else if (name === 'media') {
      const result = await runMediaBench({
        concurrency: Math.round(positive('connections', values.connections ?? '4', 256)),
        durationMs: settings.durationMs,
        jobs: Math.round(positive('jobs', values.jobs, 100_000)),
        holdMs: realtimeDurationMs,
        pollMs: 1000,
        inProcess: settings.inProcess,
        target: settings.target,
        onStep: step,
      });
      report.load.push(result);
      print(formatMedia(result));
    } else if (name === 'upload') {
      const bytes = Math.round(positive('bytes', values.bytes, 5 * 1024 ** 3));
      step(`upload: ${Math.round(bytes / 1024 ** 2)} MiB`);
      const result = await runUploadBench({
        bytes,
        concurrency: Math.round(positive('connections', values.connections ?? '4', 64)),
        target: settings.target,
        baselines: wantsUploadBaselines,
      });
      report.load.push(result);
      print(formatUpload(result));
    } else if (name === 'search') {
      const files = Math.round(positive('files', values.files, 1_000_000));
      step(`search: indexing ${files.toLocaleString('en-US')} files`);
      const result = {
        scenario: 'search' as const,
        ...(await benchSearch({ files, queries: Math.round(positive('queries', values.queries, 1_000_000)) })),
      };
      report.load.push(result);
      print(formatSearch(result));
    } else if (name === IDLE_SCENARIO) {
      const calls = Math.round(positive('connections', values.connections ?? '10000', 100_000));
      step(`${IDLE_SCENARIO}: ${calls.toLocaleString('en-US')} calls`);
      const result = await runRealtimeIdle({
        calls,
        holdMs: realtimeDurationMs,
        concurrency: 200,
        callTimeoutMs: Math.max(30_000, settings.timeoutMs),
        pingTimeoutMs: Math.max(30_000, settings.timeoutMs),
        clientThreads,
        inProcess: settings.inProcess,
        target: settings.target,
        baseline: wantsIdleBaseline,
        onStep: step,
      });
      report.load.push(result);
      print(formatIdle(result));
    } else if (name === ACTIVE_SCENARIO) {
      const calls = Math.round(positive('connections', values.connections ?? '500', 100_000));
      step(`${ACTIVE_SCENARIO}: ${calls.toLocaleString('en-US')} calls`);
      const result = await runRealtimeActive({
        calls,
        durationMs: realtimeDurationMs,
        concurrency: 100,
        callTimeoutMs: Math.max(30_000, settings.timeoutMs),
        clientThreads,
        inProcess: settings.inProcess,
        target: settings.target,
        baseline: wantsActiveBaseline,
        rounds: settings.rounds,
        onStep: step,
      });
      report.load.push(result);
      print(formatActive(result));
    } else {
      const result = await runScenario(name as ScenarioName, settings);
      report.load.push(result);
      print(formatScenario(result));
    }
  } catch (err) {
    failed = true;
    const message = err instanceof Error ? err.message : String(err);
    report.load.push({ scenario: name, error: message });
    print(`### ${name}\n\nfailed: ${message}`);
  }
}

const dir = join(import.meta.dirname, 'results');
mkdirSync(dir, { recursive: true });
const file = join(dir, `${report.when.replace(/[:.]/g, '-')}.json`);
writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
if (values.json) process.stdout.write(`${JSON.stringify(report)}\n`);
else process.stdout.write(`written ${file}\n`);
process.exit(failed ? 1 : 0);
