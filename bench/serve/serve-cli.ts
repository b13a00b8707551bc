import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseLength, parseList, parseSlo, type ServeOptions } from './serve-options.js';
import { writeServeFiles, type ServeFiles } from './serve-files.js';
import { createServeProgress } from './serve-progress.js';
import { runServeSweep, startLocalSimGateway, type ServePoint, type ServeReport } from './serve-scenario.js';

/** The command-line values the `serve` scenario reads (strings as `parseArgs` gives them). */
export interface ServeArgs {
  target?: string;
  token?: string;
  model?: string;
  api?: string;
  concurrency?: string;
  rate?: string;
  'max-concurrency'?: string;
  burstiness?: string;
  requests?: string;
  duration?: string;
  'input-tokens'?: string;
  'output-tokens'?: string;
  prompts?: string;
  'ignore-eos'?: boolean;
  slo?: string;
  timeout?: string;
  seed?: string;
  'client-threads'?: string;
  'server-pid'?: string;
}

function bounded(name: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value < min || value > max)
    throw new Error(`--${name} must be a number in [${min}, ${max}], got ${text}`);
  return value;
}

/** `--server-pid`: a process on this machine to sample (it must exist), or null. */
export function serverPidFromArgs(args: ServeArgs): number | null {
  if (!args['server-pid']) return null;
  const pid = Number(args['server-pid']);
  if (!Number.isInteger(pid) || pid <= 0 || !existsSync(`/proc/${pid}/stat`))
    throw new Error(`--server-pid must be the id of a running process on this machine, got ${args['server-pid']}`);
  return pid;
}

/** Checks the `serve` options; throws an Error saying what is wrong (the run exits 2 before anything starts). */
export function serveOptionsFromArgs(args: ServeArgs): ServeOptions {
  if (args.target && !args.model) throw new Error('--scenario serve with --target needs --model M');
  if (args.concurrency && args.rate)
    throw new Error(
      '--concurrency and --rate are two kinds of sweep: give one (with --rate, cap in-flight requests with --max-concurrency)',
    );
  const api = args.api ?? 'chat';
  if (api !== 'chat' && api !== 'responses') throw new Error(`--api must be chat or responses, got ${api}`);
  if (args.prompts && !existsSync(args.prompts)) throw new Error(`--prompts: no file ${args.prompts}`);
  const mode = args.rate ? 'rate' : 'concurrency';
  const points = args.rate ? parseList('rate', args.rate) : parseList('concurrency', args.concurrency ?? '1,4,16,64');
  if (mode === 'concurrency' && points.some((c) => !Number.isInteger(c) || c > 10_000))
    throw new Error('--concurrency values must be whole numbers up to 10000');
  return {
    url: args.target ?? '',
    token: args.token ?? '',
    model: args.model ?? 'pro-1',
    api,
    mode,
    points,
    maxConcurrency: args['max-concurrency']
      ? Math.round(bounded('max-concurrency', args['max-concurrency'], 1, 10_000))
      : null,
    burstiness: bounded('burstiness', args.burstiness ?? '1', 0.01, 1000),
    requests: args.requests ? Math.round(bounded('requests', args.requests, 1, 10_000_000)) : null,
    durationMs: args.duration ? bounded('duration', args.duration, 0.1, 86_400) * 1000 : null,
    inputTokens: parseLength('input-tokens', args['input-tokens'] ?? '256,64'),
    outputTokens: parseLength('output-tokens', args['output-tokens'] ?? '64,16'),
    promptsFile: args.prompts ?? null,
    ignoreEos: args['ignore-eos'] ?? false,
    slo: args.slo ? parseSlo(args.slo) : {},
    timeoutMs: bounded('timeout', args.timeout ?? '120', 0.1, 3600) * 1000,
    seed: Math.round(bounded('seed', args.seed ?? '1', 0, 2 ** 31)),
    warmupRequests: 1,
    clientThreads: Math.round(bounded('client-threads', args['client-threads'] ?? '1', 1, 16)),
  };
}

/** What the main report keeps of a `serve` run: the figures per point (the timings are in its own JSON file). */
export type ServeSummary = Omit<ServeReport, 'points'> & { points: Omit<ServePoint, 'timings'>[]; files: ServeFiles };

/**
 * Runs the sweep against `--target`, or against our gateway on the paced sim started here (and
 * sampled), writes the JSON, CSV and HTML under bench/results/, and returns the summary.
 */
export async function runServeCommand(
  options: ServeOptions,
  settings: {
    inProcess: boolean;
    quiet: boolean;
    /** A `--target` running on this machine whose CPU and RSS the report adds (`--server-pid`). */
    serverPid: number | null;
    onStep: (text: string) => void;
  },
): Promise<ServeSummary> {
  const progress = settings.quiet ? null : createServeProgress();
  const local = options.url ? null : await startLocalSimGateway(settings.inProcess);
  try {
    const report = await runServeSweep(local ? { ...options, url: local.url, token: local.token! } : options, {
      ...(local && local.sample !== null && { local: { pid: local.sample, kind: 'local sim gateway' as const } }),
      ...(progress && { onProgress: progress.update }),
      onStep: (text) => {
        progress?.end();
        settings.onStep(text);
      },
    });
    progress?.end();
    const files = writeServeFiles(report, join(import.meta.dirname, '..', 'results'));
    const points = report.points.map((point) => ({ ...point, timings: undefined }));
    return { ...report, points, files };
  } finally {
    await local?.close();
  }
}

/** The summary as a Markdown table for the terminal. */
export function formatServe(summary: ServeSummary): string {
  const ms = (s: { mean: number; p50: number; p99: number } | null) =>
    s ? `${s.mean.toFixed(1)} / ${s.p50.toFixed(1)} / ${s.p99.toFixed(1)}` : '–';
  const lines = [
    `### serve: ${summary.target} (${summary.server}), ${summary.options.model}, ${summary.options.api}`,
    '',
    `| ${summary.options.mode} | done | failed | req/s | output tok/s | total tok/s | TTFT mean / p50 / p99 ms | TPOT ms | ITL ms | E2E ms | goodput req/s | client loop |`,
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...summary.points.map(
      ({ x, figures: f, client }) =>
        `| ${x} | ${f.completed} | ${f.failed} | ${f.requestThroughput} | ${f.outputTokensPerS}${f.tokensEstimated ? ' (est.)' : ''} | ${f.totalTokensPerS} | ${ms(f.ttftMs)} | ${ms(f.tpotMs)} | ${ms(f.itlMs)} | ${ms(f.e2elMs)} | ${f.goodput ?? '–'} | ${Math.round(client.eventLoopUtilization * 100)} % |`,
    ),
  ];
  const errors = summary.points.filter((p) => p.figures.failed > 0);
  if (errors.length) lines.push('', ...errors.map((p) => `errors at ${p.x}: ${JSON.stringify(p.figures.errors)}`));
  if (summary.warnings.length) lines.push('', ...summary.warnings.map((w) => `warning: ${w}`));
  lines.push('', `written ${summary.files.json}`, `written ${summary.files.csv}`, `written ${summary.files.html}`);
  return lines.join('\n');
}
