// Issue 28's outside measurement inside the proxy scenario: wrk (-t1, 50 connections) posting the
// two-message request of bench/wrk/chat-post-two.lua to the same gateway, its CPU read from
// /proc/<pid>/stat before and after and divided by the requests wrk completed. It shares nothing
// with the bench's own load client, so the two CPU figures check each other.
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { readStatCpuMs } from '../load/process-sampler.js';

const SCRIPT = resolve(import.meta.dirname, '../wrk/chat-post-two.lua');

/** What wrk measured against the gateway. */
export interface OutsideFigure {
  requests: number;
  non2xx: number;
  cpuMsPerRequest: number;
}

function runWrk(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((done, fail) =>
    execFile('wrk', args, { env: { ...process.env, ...env }, timeout: 120_000 }, (err, stdout) =>
      err ? fail(new Error(`wrk: ${err.message}`, { cause: err })) : done(stdout),
    ),
  );
}

/** Runs wrk for `durationMs` against `url`'s chat route with `token`; `skipped` says why it could not. */
export async function measureOutside(
  url: string,
  token: string,
  pid: number,
  durationMs: number,
  connections: number,
): Promise<OutsideFigure | { skipped: string }> {
  const args = (seconds: number) => [
    '-t1',
    `-c${connections}`,
    `-d${seconds}s`,
    '-s',
    SCRIPT,
    `${url}/v1/chat/completions`,
  ];
  const env = { SVC_BENCH_TOKEN: token };
  try {
    await runWrk(args(1), env); // the connections open and the script's request warms its path
    const before = readStatCpuMs(`/proc/${pid}/stat`);
    const out = await runWrk(args(Math.max(1, Math.round(durationMs / 1000))), env);
    const after = readStatCpuMs(`/proc/${pid}/stat`);
    const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
    const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
    if (before === null || after === null || requests === 0) return { skipped: 'no CPU reading or no requests' };
    return { requests, non2xx, cpuMsPerRequest: Math.round(((after - before) / requests) * 1000) / 1000 };
  } catch (err) {
    return { skipped: `wrk did not run (${err instanceof Error ? err.message.split('\n')[0] : String(err)})` };
  }
}
