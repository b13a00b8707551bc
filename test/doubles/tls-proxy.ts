import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { join, resolve } from 'node:path';
import { reapOnExit } from './reap.js';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** A real reverse proxy on loopback running docs/deploy.md's config, terminating TLS with a self-signed certificate. */
export interface TlsProxy {
  /** `https://127.0.0.1:<port>` */
  url: string;
  /** The self-signed certificate clients must trust. */
  cert: Buffer;
  close(): Promise<void>;
}

/** Where `name` is on PATH (or in /usr/sbin, where Debian puts nginx), or null. */
export function findBinary(name: string): string | null {
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/sbin']) {
    const path = join(dir, name);
    if (spawnSync(path, ['-v'], { stdio: 'ignore' }).error === undefined) return path;
  }
  return null;
}

/** The fenced block of docs/deploy.md in `language` (```nginx, ```caddy): the config operators copy and the test runs. */
export function configFromDocs(language: string): string {
  const page = readFileSync(join(ROOT, 'docs', 'deploy.md'), 'utf8');
  const block = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(page);
  if (!block) throw new Error(`docs/deploy.md has no \`\`\`${language} block`);
  return block[1]!;
}

/** `config` with each `from` replaced by its `to`, failing when the docs no longer have a `from`. */
export function substitute(config: string, pairs: readonly (readonly [string, string])[]): string {
  let out = config;
  for (const [from, to] of pairs) {
    if (!out.includes(from)) throw new Error(`docs/deploy.md's block no longer has "${from}"`);
    out = out.replace(from, to);
  }
  return out;
}

/** A free loopback TCP port (bound, then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** Resolves once something accepts TCP connections on `port`. */
async function waitForPort(port: number, deadline: number): Promise<void> {
  for (;;) {
    const open = await new Promise<boolean>((done) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        done(true);
      });
      socket.on('error', () => done(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on ${port}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

/** A self-signed certificate for 127.0.0.1 and localhost (EC P-256: quick to make) made with the openssl CLI, in `dir`. */
export function selfSignedCertificate(dir: string): { certFile: string; keyFile: string } {
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'pipe' },
  );
  return { certFile, keyFile };
}

/**
 * Runs a proxy process that serves TLS on `port` from `dir` (removed at close): resolves once the
 * port accepts connections; fails with the process's stderr when it exits first.
 */
export async function runProxy(
  what: string,
  command: { binary: string; args: string[]; env?: Record<string, string>; stopSignal: NodeJS.Signals },
  where: { dir: string; port: number; certFile: string },
): Promise<TlsProxy> {
  const child: ChildProcess = spawn(command.binary, command.args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...command.env },
  });
  reapOnExit(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  try {
    await Promise.race([
      waitForPort(where.port, Date.now() + 10_000),
      exited.then(() => {
        throw new Error(`${what} exited: ${stderr}`);
      }),
    ]);
  } catch (err) {
    child.kill('SIGKILL');
    rmSync(where.dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `https://127.0.0.1:${where.port}`,
    cert: readFileSync(where.certFile),
    close: async () => {
      if (child.exitCode === null) {
        child.kill(command.stopSignal);
        await exited;
      }
      rmSync(where.dir, { recursive: true, force: true });
    },
  };
}
