// The processes of the cluster scenario: nats-servers (one with JetStream, or a 3-server JetStream
// cluster) and gateway nodes (`node --import tsx http/main.ts`, what `npm start` runs), each on a
// free loopback port with temporary directories. Every process started here is tracked and killed
// with SIGKILL when the bench process exits, whatever happened before.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startNatsCluster as startTestNatsCluster } from '../../test/doubles/nats-cluster.js';
import { startNatsServer } from '../../test/doubles/nats-server.js';

const ROOT = resolve(import.meta.dirname, '../..');

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL'); // never leave a server behind
});

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/** Kills `child` with `signal` and resolves once it has exited. */
function killChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  return new Promise((done) => {
    if (exited(child)) {
      children.delete(child);
      return done();
    }
    child.once('exit', () => {
      children.delete(child);
      done();
    });
    child.kill(signal);
  });
}

/**
 * Spawns a tracked child and resolves once `ready` matches its output on `stream`, within
 * `timeoutMs`. Both pipes stay drained for the child's life; only the stderr tail is kept.
 */
function spawnUntil(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; ready: RegExp; stream: 'stdout' | 'stderr'; timeoutMs: number },
): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(command, args, { cwd: ROOT, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let log: string | null = '';
  let tail = '';
  return new Promise((resolveStart, reject) => {
    const fail = (why: string) => {
      if (log === null) return;
      log = null;
      clearTimeout(timer);
      void killChild(child, 'SIGKILL');
      reject(new Error(`${command} ${args.slice(0, 3).join(' ')}: ${why}\n${tail}`));
    };
    const timer = setTimeout(() => fail(`not ready within ${options.timeoutMs} ms`), options.timeoutMs);
    const onExit = (code: number | null, signal: string | null) => fail(`exited (${code ?? signal})`);
    child.once('exit', onExit);
    const watch = (chunk: Buffer) => {
      if (log === null) return;
      log += chunk.toString();
      const match = options.ready.exec(log);
      if (!match) return;
      log = null;
      clearTimeout(timer);
      child.off('exit', onExit);
      resolveStart({ child, match });
    };
    child.stdout.on('data', (chunk: Buffer) => {
      if (options.stream === 'stdout') watch(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-4000);
      if (options.stream === 'stderr') watch(chunk);
    });
  });
}

/** One nats-server, or the servers of a JetStream cluster: their client URLs and how to stop them. */
export interface NatsUnderTest {
  urls: string[];
  /** The servers' process ids (for CPU readings). */
  pids: number[];
  close(): Promise<void>;
}

/** One nats-server with JetStream on loopback, its store in a temporary directory (what an R1 node uses). */
export async function startNats(): Promise<NatsUnderTest> {
  const storeDir = mkdtempSync(join(tmpdir(), 'svc-bench-nats-'));
  try {
    const server = await startNatsServer({ jetstream: true, storeDir });
    return {
      urls: [server.url],
      pids: server.process.pid === undefined ? [] : [server.process.pid],
      close: async () => {
        await server.stop();
        rmSync(storeDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(storeDir, { recursive: true, force: true });
    throw err;
  }
}

/** `size` nats-servers with JetStream and routes between all of them (the tests' cluster), ready for streams with `size` replicas. */
export async function startNatsCluster(size = 3): Promise<NatsUnderTest> {
  const cluster = await startTestNatsCluster(size);
  return {
    urls: cluster.urls,
    pids: cluster.members.flatMap((member) => (member.process.pid === undefined ? [] : [member.process.pid])),
    close: () => cluster.close(),
  };
}

/** One key for sealed secrets on every node (cluster mode requires it; the single node gets it too, same settings). */
export const BENCH_SECRETS_KEY = Buffer.alloc(32, 7).toString('base64');

/** A gateway process: its URL while up, and how to stop or restart it (same env, same data directory). */
export interface GatewayProcess {
  readonly id: string;
  readonly adminKey: string;
  /** Origin while up (throws while down). */
  readonly url: string;
  readonly pid: number | null;
  readonly up: boolean;
  /** Times it exited with code 3 (fenced by the cluster: `http/main.ts` exits so), at boot or later. */
  readonly fencedExits: number;
  /** Starts it (again): a new process, on a fresh port, over the same data directory. */
  start(): Promise<void>;
  /** Kills it with `signal` (SIGKILL: a crash) and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * A gateway with the sim backend at zero latency (as every load scenario), on its own data
 * directory under `root`. `env` adds settings (cluster mode: SVC_NATS_URL, SVC_NODE_ID, …).
 */
export function gatewayProcess(
  id: string,
  root: string,
  adminKey: string,
  env: Record<string, string> = {},
): GatewayProcess {
  let child: ChildProcess | null = null;
  let url: string | null = null;
  let fencedExits = 0;
  const fullEnv = {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    SVC_LOG_LEVEL: 'warn',
    SVC_DATA_DIR: join(root, id),
    SVC_ADMIN_KEY: adminKey,
    SVC_SECRETS_KEY: BENCH_SECRETS_KEY,
    SVC_BACKEND: 'sim',
    SVC_SIM_TTFT_MS: '0',
    SVC_SIM_TOKENS_PER_S: '0',
    ...env,
  };
  const gateway: GatewayProcess = {
    id,
    adminKey,
    get url() {
      if (!url) throw new Error(`gateway ${id} is down`);
      return url;
    },
    get pid() {
      return child?.pid ?? null;
    },
    get up() {
      return child !== null && !exited(child);
    },
    get fencedExits() {
      return fencedExits;
    },
    start: async () => {
      const started = await spawnUntil(process.execPath, ['--import', 'tsx', 'http/main.ts'], {
        env: fullEnv,
        ready: /svc listening on (\d+)/,
        stream: 'stdout',
        timeoutMs: 30_000,
      }).catch((err: unknown) => {
        if (/: exited \(3\)/.test(String(err))) fencedExits++;
        throw err;
      });
      child = started.child;
      child.once('exit', (code) => {
        if (code === 3) fencedExits++;
      });
      url = `http://127.0.0.1:${started.match[1]}`;
      child.once('exit', () => (url = null));
    },
    kill: async (signal = 'SIGKILL') => {
      if (child) await killChild(child, signal);
      url = null;
    },
  };
  return gateway;
}

/** A temporary directory for gateway data (and a shared blob directory), removed by `remove`. */
export function benchRoot(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** An admin key for one run. */
export const newAdminKey = () => `bench-admin-${randomBytes(12).toString('hex')}`;
