// The added tail at one connection (issue 28), A/B across compiled builds: one instant upstream,
// one gateway per side (`node <its start flags> <dir>/dist/http/main.js`, the openai-compatible
// backend, cache off, upstream concurrency 512), and per round, sides rotating: the disk floor
// (1,500 durable LMDB commits) and the settle floor (1,500 hold → settle), the upstream called directly, then each gateway, each for
// `--requests` sequential non-streaming requests on one keep-alive connection (the issue's
// two-message body). Added = gateway − direct at the same percentile, per round; medians of rounds.
// Usage: npx tsx bench/proxy/tail-ab-main.ts [--rounds 5] [--requests 3000] NAME=DIR [NAME=DIR ...]
// BENCH_SERVER_NODE_ARGS adds node flags to every gateway (e.g. --trace-gc); its stdout is kept
// in <out>/<name>.log with `--keep-logs <out>`.
import { createWriteStream, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'undici';
import { createBenchAccount, spawnServer } from '../load/servers.js';
import { measureDiskFloor } from './disk-floor.js';
import { measureSettleFloor } from './settle-floor.js';
import { readFileSync } from 'node:fs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: 'string', default: '5' },
    requests: { type: 'string', default: '3000' },
    'keep-logs': { type: 'string' },
  },
});
const rounds = Number(values.rounds);
const requests = Number(values.requests);
const sides = positionals.map((arg) => {
  const [name, dir] = arg.split('=') as [string, string];
  return { name, dir: resolve(dir) };
});
if (sides.length === 0) throw new Error('usage: tail-ab-main.ts [--rounds N] [--requests N] NAME=DIR ...');

const ADMIN = 'bench-admin-key-0123456789abcdef';
const BODY = JSON.stringify({
  model: 'pro-1',
  max_tokens: 32,
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Say hello to the load test.' },
  ],
});

const startFlags = (dir: string): string[] => {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts: { start: string } };
  return pkg.scripts.start.split(/\s+/).filter((word) => word.startsWith('--'));
};

const quantile = (sorted: Float64Array, q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

/** `count` sequential requests on one connection; latencies in ms, sorted. */
async function sequential(url: string, path: string, token: string | null, count: number): Promise<Float64Array> {
  const client = new Client(url, { pipelining: 1 });
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const times = new Float64Array(count);
  try {
    for (let i = -200; i < count; i++) {
      const start = performance.now();
      const res = await client.request({ method: 'POST', path, headers, body: BODY });
      await res.body.arrayBuffer();
      if (res.statusCode !== 200) throw new Error(`${url}: status ${res.statusCode}`);
      if (i >= 0) times[i] = performance.now() - start;
    }
  } finally {
    await client.close();
  }
  return times.sort();
}

const upstream = await spawnServer('bench/proxy/instant-upstream-main.ts', {}, /upstream listening on (\d+)/);
const direct = `http://127.0.0.1:${upstream.port}`;
const logs = values['keep-logs'];
if (logs) mkdirSync(logs, { recursive: true });
const gateways = [];
for (const side of sides) {
  const dataDir = join('/tmp', `svc-tail-${side.name}-${process.pid}`);
  const server = await spawnServer(
    join(side.dir, 'dist/http/main.js'),
    {
      PORT: '0',
      HOST: '127.0.0.1',
      SVC_DATA_DIR: dataDir,
      SVC_ADMIN_KEY: ADMIN,
      SVC_LOG_LEVEL: 'warn',
      SVC_CHAT_CACHE_TTL_S: '0',
      SVC_BACKEND: 'openai-compatible',
      SVC_UPSTREAM_BASE_URL: `${direct}/v1`,
      SVC_UPSTREAM_MODEL: 'instant',
      SVC_UPSTREAM_API_KEY: 'sk-bench-upstream',
      SVC_UPSTREAM_CONCURRENCY: '512',
    },
    /svc listening on (\d+)/,
    { nodeArgs: startFlags(side.dir) },
  );
  if (logs) server.child.stdout?.pipe(createWriteStream(join(logs, `${side.name}.log`)));
  const url = `http://127.0.0.1:${server.port}`;
  gateways.push({ ...side, url, token: await createBenchAccount(url, ADMIN), server, dataDir });
}

type Row = { p50: number; p90: number; p99: number; p999: number };
const rows = new Map<string, Row[]>();
const add = (name: string, row: Row) => rows.set(name, [...(rows.get(name) ?? []), row]);
const round3 = (ms: number) => Math.round(ms * 1000) / 1000;
try {
  for (let round = 0; round < rounds; round++) {
    const floor = await measureDiskFloor();
    add('disk floor', { p50: floor.p50Ms, p90: NaN, p99: floor.p99Ms, p999: NaN });
    const settle = await measureSettleFloor();
    add('settle floor', { p50: settle.p50Ms, p90: NaN, p99: settle.p99Ms, p999: NaN });
    const base = await sequential(direct, '/v1/chat/completions', null, requests);
    const d: Row = {
      p50: quantile(base, 0.5),
      p90: quantile(base, 0.9),
      p99: quantile(base, 0.99),
      p999: quantile(base, 0.999),
    };
    add('direct', d);
    for (let i = 0; i < gateways.length; i++) {
      const g = gateways[(i + round) % gateways.length]!;
      const t = await sequential(g.url, '/v1/chat/completions', g.token, requests);
      add(g.name, {
        p50: quantile(t, 0.5) - d.p50,
        p90: quantile(t, 0.9) - d.p90,
        p99: quantile(t, 0.99) - d.p99,
        p999: quantile(t, 0.999) - d.p999,
      });
    }
    const line = [...rows].map(
      ([name, list]) => `${name} p50 ${round3(list.at(-1)!.p50)} p99 ${round3(list.at(-1)!.p99)}`,
    );
    process.stderr.write(`round ${round + 1} (load ${loadavg()[0]!.toFixed(2)}): ${line.join(' | ')}\n`);
  }
} finally {
  for (const g of gateways) await g.server.stop();
  await upstream.stop();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
process.stdout.write(
  `| side (${rounds} rounds × ${requests} requests, 1 conn.) | p50 | p90 | p99 | p99.9 | p99 per round |\n|---|---:|---:|---:|---:|---|\n`,
);
for (const [name, list] of rows) {
  const cell = (k: keyof Row) => (Number.isNaN(list[0]![k]) ? '–' : round3(median(list.map((r) => r[k]))).toString());
  const label = name.endsWith('floor') || name === 'direct' ? name : `${name} (added)`;
  process.stdout.write(
    `| ${label} | ${cell('p50')} | ${cell('p90')} | ${cell('p99')} | ${cell('p999')} | ${list.map((r) => round3(r.p99)).join(', ')} |\n`,
  );
}
