import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildApp } from '../../http/app.js';
import { loadConfig } from '../../runtime/config.js';
import { startBareServer, type BareServerOptions } from './bare-servers.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** A server the load client targets, with how to sample its CPU and memory. */
export interface ServerUnderTest {
  /** Origin, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** Bearer token for the chat route (null for baselines). */
  token: string | null;
  /** A child's pid (sampled from /proc), 'self' when in-process, null when unknown (a remote target). */
  sample: number | 'self' | null;
  /** The gateway's data directory while it runs (our gateway only): what the soak measures the store in. */
  dataDir?: string;
  close(): Promise<void>;
}

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL'); // never leave a server behind
});

/**
 * The node flags `npm start` runs the server with (the `--` options before the entry in
 * package.json's start script), so the bench measures the gateway as it is deployed.
 */
export function startFlags(): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const words = pkg.scripts.start.split(/\s+/);
  return words.slice(words.indexOf('node') + 1).filter((word) => word.startsWith('--'));
}

/**
 * Spawns `<entry>` (a child the bench kills on exit): compiled JavaScript with plain `node`, a
 * TypeScript source with `node --import tsx`; waits for `<pattern> (\d+)` on its stdout.
 */
export function spawnServer(
  entry: string,
  env: Record<string, string>,
  ready: RegExp,
  /** Flags for node before `entry` (`nodeArgs`) and arguments of the program after it (`args`). */
  extra: { nodeArgs?: string[]; args?: string[] } = {},
): Promise<{ port: number; child: ChildProcess; stop(): Promise<void> }> {
  // BENCH_SERVER_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"): node flags for the server
  // alone, which NODE_OPTIONS cannot carry (it refuses --cpu-prof and would reach the client too).
  const envArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [];
  const args = [
    ...(extra.nodeArgs ?? []),
    ...envArgs,
    ...(entry.endsWith('.js') ? [entry] : ['--import', 'tsx', entry]),
    ...(extra.args ?? []),
  ];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const stop = () =>
    new Promise<void>((done) => {
      children.delete(child);
      if (child.exitCode !== null || child.signalCode !== null) return done();
      const force = setTimeout(() => child.kill('SIGKILL'), 5000);
      child.once('exit', () => {
        clearTimeout(force);
        done();
      });
      child.kill('SIGTERM');
    });
  return new Promise((resolveStart, reject) => {
    let out = '';
    const fail = (why: string) => {
      void stop();
      reject(new Error(`${entry}: ${why}\n${stderr}`));
    };
    const timer = setTimeout(() => fail('did not start within 30 s'), 30_000);
    child.once('exit', (code) => fail(`exited with ${code}`));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = ready.exec(out);
      if (!match) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolveStart({ port: Number(match[1]), child, stop });
    });
  });
}

/** Creates an account with plenty of credit through the admin API and returns its API token. */
export async function createBenchAccount(url: string, adminKey: string): Promise<string> {
  const res = await fetch(`${url}/admin/v1/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      email: `bench-${randomBytes(4).toString('hex')}@example.com`,
      password: 'bench password 123',
      credit_usd: 1_000_000,
    }),
  });
  const body = (await res.json()) as { api_token?: { token?: string } };
  if (res.status !== 201 || !body.api_token?.token)
    throw new Error(`account creation failed: ${res.status} ${JSON.stringify(body)}`);
  return body.api_token.token;
}

function gatewayEnv(dataDir: string, adminKey: string): Record<string, string> {
  return {
    PORT: '0',
    HOST: '127.0.0.1',
    SVC_DATA_DIR: dataDir,
    SVC_ADMIN_KEY: adminKey,
    SVC_BACKEND: 'sim',
    SVC_SIM_TTFT_MS: '0',
    SVC_SIM_TOKENS_PER_S: '0',
  };
}

let built = false;

/** Builds the server into `dist/` once per bench run (incremental: quick when nothing changed). */
export function buildServer(): string {
  if (!built) {
    execFileSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
      {
        cwd: ROOT,
        stdio: 'inherit',
      },
    );
    built = true;
  }
  return 'dist/http/main.js';
}

/**
 * Starts the gateway with the sim backend at zero latency and a fresh data directory, as a child
 * process (`node <start flags> dist/http/main.js`, what `npm start` runs, built first) or inside this process.
 * `env` adds settings on top of those (e.g. `SVC_SIM_SPEECH_REALTIME` for the realtime scenarios).
 */
export async function startGateway(
  options: { inProcess?: boolean; env?: Record<string, string> } = {},
): Promise<ServerUnderTest> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const adminKey = `bench-admin-${randomBytes(12).toString('hex')}`;
  const cleanup = () => rmSync(dataDir, { recursive: true, force: true });
  if (options.inProcess) {
    const app = buildApp(loadConfig({ ...gatewayEnv(dataDir, adminKey), ...options.env, SVC_LOG_LEVEL: 'silent' }));
    const url = `http://127.0.0.1:${await app.listen()}`;
    return {
      url,
      token: await createBenchAccount(url, adminKey),
      sample: 'self',
      dataDir,
      close: () => app.close().then(cleanup),
    };
  }
  const server = await spawnServer(
    buildServer(),
    { ...gatewayEnv(dataDir, adminKey), ...options.env, SVC_LOG_LEVEL: 'warn' },
    /svc listening on (\d+)/,
    { nodeArgs: startFlags() },
  );
  const url = `http://127.0.0.1:${server.port}`;
  return {
    url,
    token: await createBenchAccount(url, adminKey),
    sample: server.child.pid ?? null,
    dataDir,
    close: () => server.stop().then(cleanup),
  };
}

/** Starts a baseline server (see bare-servers.ts) as a child process or inside this process. */
export async function startBaseline(options: BareServerOptions & { inProcess?: boolean }): Promise<ServerUnderTest> {
  if (options.inProcess) {
    const server = await startBareServer(options);
    return { url: `http://127.0.0.1:${server.port}`, token: null, sample: 'self', close: () => server.close() };
  }
  const server = await spawnServer(
    'bench/load/bare-server-main.ts',
    { BENCH_BARE: JSON.stringify(options) },
    /bare listening on (\d+)/,
  );
  return {
    url: `http://127.0.0.1:${server.port}`,
    token: null,
    sample: server.child.pid ?? null,
    close: () => server.stop(),
  };
}

/** A deployment given by `--target URL --token T`: not started, not stopped, not sampled. */
export function externalTarget(url: string, token: string): ServerUnderTest {
  return { url: url.replace(/\/+$/, ''), token, sample: null, close: () => Promise.resolve() };
}

/**
 * Runs `measure` on the gateway (or the `--target` deployment), then on the bare baseline (unless
 * `baseline` is null), starting each server for its run and closing it after, so the two never
 * share the machine.
 */
export async function measureOursThenBaseline<Row>(
  options: {
    target: { url: string; token: string } | null;
    inProcess: boolean;
    gatewayEnv?: Record<string, string>;
    baseline: { server: BareServerOptions; name: string } | null;
  },
  measure: (server: ServerUnderTest, name: string, role: 'ours' | 'baseline') => Promise<Row>,
): Promise<Row[]> {
  const rows: Row[] = [];
  const ours = options.target
    ? externalTarget(options.target.url, options.target.token)
    : await startGateway({ inProcess: options.inProcess, ...(options.gatewayEnv && { env: options.gatewayEnv }) });
  try {
    rows.push(await measure(ours, 'svc gateway', 'ours'));
  } finally {
    await ours.close();
  }
  if (options.baseline) {
    const bare = await startBaseline({ ...options.baseline.server, inProcess: options.inProcess });
    try {
      rows.push(await measure(bare, options.baseline.name, 'baseline'));
    } finally {
      await bare.close();
    }
  }
  return rows;
}
