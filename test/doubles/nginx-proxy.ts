import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { reapOnExit } from './reap.js';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** Where `name` is on PATH (or in /usr/sbin, where Debian puts nginx), or null. */
export function findBinary(name: string): string | null {
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/sbin']) {
    const path = join(dir, name);
    if (spawnSync(path, ['-v'], { stdio: 'ignore' }).error === undefined) return path;
  }
  return null;
}

/** The ```nginx block of docs/deploy.md: the config operators copy and the test runs. */
export function nginxConfigFromDocs(): string {
  const page = readFileSync(join(ROOT, 'docs', 'deploy.md'), 'utf8');
  const block = /```nginx\n([\s\S]*?)```/.exec(page);
  if (!block) throw new Error('docs/deploy.md has no ```nginx block');
  return block[1]!;
}

/** A free loopback TCP port (bound, then released). */
async function freePort(): Promise<number> {
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

/** A real nginx on loopback running the page's config in front of `upstreamPort`, TLS with a self-signed certificate. */
export interface NginxProxy {
  /** `https://127.0.0.1:<port>` */
  url: string;
  /** The self-signed certificate clients must trust. */
  cert: Buffer;
  close(): Promise<void>;
}

/**
 * Starts nginx (`nginx` and `openssl` must be installed) with docs/deploy.md's block, its upstream,
 * listen address and certificate replaced by loopback ones, inside a minimal main config whose
 * files all live in a temporary directory (no root needed).
 */
export async function startNginx(nginx: string, upstreamPort: number): Promise<NginxProxy> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-nginx-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  const port = await freePort();
  let site = nginxConfigFromDocs();
  const replace = (from: string, to: string) => {
    if (!site.includes(from)) throw new Error(`docs/deploy.md's nginx block no longer has "${from}"`);
    site = site.replace(from, to);
  };
  replace('server 127.0.0.1:8080;', `server 127.0.0.1:${upstreamPort};`);
  replace('listen 443 ssl;', `listen 127.0.0.1:${port} ssl;`);
  replace('/etc/ssl/svc/fullchain.pem', certFile);
  replace('/etc/ssl/svc/privkey.pem', keyFile);
  for (const temp of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, temp));
  const conf = `daemon off;
master_process off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 512; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${site}
}
`;
  writeFileSync(join(dir, 'nginx.conf'), conf);
  const child = spawn(nginx, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  reapOnExit(child);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  try {
    await Promise.race([
      waitForPort(port, Date.now() + 10_000),
      exited.then(() => {
        throw new Error(`nginx exited: ${stderr}`);
      }),
    ]);
  } catch (err) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `https://127.0.0.1:${port}`,
    cert: readFileSync(certFile),
    close: async () => {
      if (child.exitCode === null) {
        child.kill('SIGQUIT');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
