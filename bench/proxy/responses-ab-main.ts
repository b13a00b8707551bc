// Issue 26's last check, re-runnable: gateway CPU per non-streaming request of `/v1/responses`
// against chat completions on one compiled gateway (or several builds side by side), through the
// openai-compatible backend to one instant upstream. Rows alternate (chat, responses, ...; the order
// rotates each round, and so do the sides), each `wrk -t1 -c<connections>` for --duration seconds
// after --warmup; CPU is utime + stime of the gateway from /proc/<pid>/stat over the row ÷ the
// requests wrk completed. Reports each round, the per-round ratio to chat (median and range) and
// the ratio of the medians. Usage:
//   npx tsx bench/proxy/responses-ab-main.ts [--rounds 7] [--duration 4] [--warmup 1] [--connections 50]
//     [--rows chat,responses] [--side name=DIR ...]   (DIR holds a built dist/; default this checkout)
// Rows: chat, responses (stored, the default), responses-unstored (store: false), messages.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFile } from 'node:child_process';
import { parseArgs } from 'node:util';
import { readStatCpuMs } from '../load/process-sampler.js';
import { createBenchAccount, spawnServer, startFlags } from '../load/servers.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SCRIPT = resolve(import.meta.dirname, '../wrk/post-body.lua');
const PROMPT = 'Proxy probe for the Responses API against chat';

/** The proxy scenario's non-streaming bodies (the same prompt and cap in each format). */
const ROWS: Record<string, { path: string; body: object }> = {
  chat: {
    path: '/v1/chat/completions',
    body: { model: 'pro-1', messages: [{ role: 'user', content: PROMPT }], max_tokens: 64 },
  },
  responses: { path: '/v1/responses', body: { model: 'pro-1', input: PROMPT, max_output_tokens: 64 } },
  'responses-unstored': {
    path: '/v1/responses',
    body: { model: 'pro-1', input: PROMPT, max_output_tokens: 64, store: false },
  },
  messages: {
    path: '/v1/messages',
    body: { model: 'pro-1', messages: [{ role: 'user', content: PROMPT }], max_tokens: 64 },
  },
};

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    duration: { type: 'string', default: '4' },
    warmup: { type: 'string', default: '1' },
    connections: { type: 'string', default: '50' },
    rows: { type: 'string', default: 'chat,responses' },
    side: { type: 'string', multiple: true },
  },
});
const rounds = Number(values.rounds);
const rowNames = values.rows.split(',');
for (const row of rowNames) if (!ROWS[row]) throw new Error(`unknown row ${row} (${Object.keys(ROWS).join(', ')})`);
const sides = (values.side ?? [`this=${ROOT}`]).map((spec) => {
  const at = spec.indexOf('=');
  return { name: spec.slice(0, at), dir: resolve(spec.slice(at + 1)) };
});

const wrk = (args: string[], env: Record<string, string>) =>
  new Promise<string>((done, fail) =>
    execFile('wrk', args, { env: { ...process.env, ...env }, timeout: 120_000 }, (err, out) =>
      err ? fail(new Error(`wrk: ${err.message}`, { cause: err })) : done(out),
    ),
  );

async function startUpstream() {
  return spawnServer('bench/proxy/instant-upstream-main.ts', {}, /upstream listening on (\d+)/);
}

async function startSide(dir: string, upstreamPort: number) {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-resp-ab-'));
  const adminKey = `bench-admin-${randomBytes(12).toString('hex')}`;
  const server = await spawnServer(
    join(dir, 'dist/http/main.js'),
    {
      PORT: '0',
      HOST: '127.0.0.1',
      SVC_DATA_DIR: dataDir,
      SVC_ADMIN_KEY: adminKey,
      SVC_LOG_LEVEL: 'warn',
      SVC_CHAT_CACHE_TTL_S: '0',
      SVC_BACKEND: 'openai-compatible',
      SVC_UPSTREAM_BASE_URL: `http://127.0.0.1:${upstreamPort}/v1`,
      SVC_UPSTREAM_MODEL: 'instant',
      SVC_UPSTREAM_API_KEY: 'sk-bench-upstream',
      SVC_UPSTREAM_CONCURRENCY: '512',
    },
    /svc listening on (\d+)/,
    { nodeArgs: startFlags() },
  );
  const url = `http://127.0.0.1:${server.port}`;
  const token = await createBenchAccount(url, adminKey);
  return {
    url,
    token,
    pid: server.child.pid!,
    stop: () => server.stop().then(() => rmSync(dataDir, { recursive: true })),
  };
}

/** One row: CPU ms per request of the gateway. */
async function row(side: Awaited<ReturnType<typeof startSide>>, name: string): Promise<number> {
  const { path, body } = ROWS[name]!;
  const env = { SVC_BENCH_TOKEN: side.token, SVC_BENCH_BODY: JSON.stringify(body) };
  const args = (s: string) => ['-t1', `-c${values.connections}`, `-d${s}s`, '-s', SCRIPT, `${side.url}${path}`];
  await wrk(args(values.warmup), env);
  const before = readStatCpuMs(`/proc/${side.pid}/stat`)!;
  const out = await wrk(args(values.duration), env);
  const after = readStatCpuMs(`/proc/${side.pid}/stat`)!;
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const bad = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  if (bad > 0 || requests === 0) throw new Error(`${name}: ${bad} non-2xx of ${requests}`);
  return (after - before) / requests;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const f3 = (x: number) => x.toFixed(3);

const upstream = await startUpstream();
const running = [];
for (const side of sides) running.push({ ...side, server: await startSide(side.dir, upstream.port) });
const cpu = new Map<string, number[]>(); // `${side} ${row}` → per round
const loads: number[] = [loadavg()[0]!];
try {
  for (let round = 0; round < rounds; round++) {
    for (let s = 0; s < running.length; s++) {
      const side = running[(s + round) % running.length]!;
      for (let r = 0; r < rowNames.length; r++) {
        const name = rowNames[(r + round) % rowNames.length]!;
        const ms = await row(side.server, name);
        const key = `${side.name} ${name}`;
        cpu.set(key, [...(cpu.get(key) ?? []), ms]);
      }
    }
    loads.push(loadavg()[0]!);
    process.stdout.write(
      `round ${round + 1}: ${[...cpu].map(([key, xs]) => `${key} ${f3(xs[round]!)}`).join(', ')} (load ${loads.at(-1)!.toFixed(2)})\n`,
    );
  }
} finally {
  for (const side of running) await side.server.stop();
  await upstream.stop();
}

process.stdout.write(`\nload average ${f3(Math.min(...loads))}–${f3(Math.max(...loads))}, ${rounds} rounds\n`);
process.stdout.write(
  '| side | row | CPU ms / request, median (range) | ÷ chat: median of per-round ratios (range); ratio of medians |\n|---|---|---|---|\n',
);
for (const side of running) {
  const chat = cpu.get(`${side.name} chat`);
  for (const name of rowNames) {
    const xs = cpu.get(`${side.name} ${name}`)!;
    const versus =
      chat && name !== 'chat'
        ? (() => {
            const ratios = xs.map((x, i) => x / chat[i]!);
            return `${f3(median(ratios))} (${f3(Math.min(...ratios))}–${f3(Math.max(...ratios))}); ${f3(median(xs) / median(chat))}`;
          })()
        : '';
    process.stdout.write(
      `| ${side.name} | ${name} | ${f3(median(xs))} (${f3(Math.min(...xs))}–${f3(Math.max(...xs))}) | ${versus} |\n`,
    );
  }
}
if (running.length > 1) {
  process.stdout.write('\nEach side ÷ the first, per row (median of per-round ratios, range):\n');
  const first = running[0]!;
  for (const side of running.slice(1))
    for (const name of rowNames) {
      const a = cpu.get(`${first.name} ${name}`)!;
      const ratios = cpu.get(`${side.name} ${name}`)!.map((x, i) => x / a[i]!);
      process.stdout.write(
        `${side.name} ÷ ${first.name}, ${name}: ${f3(median(ratios))} (${f3(Math.min(...ratios))}–${f3(Math.max(...ratios))})\n`,
      );
    }
}
