import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { reapOnExit } from './reap.js';

/** Where Debian's (or any PATH) nats-server is, or null when it is not installed. */
export function natsServerPath(): string | null {
  for (const candidate of ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'])
    if (existsSync(candidate)) return candidate;
  return null;
}

/** A loopback port nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** A real nats-server of the test's own on a free loopback port; `stop` kills it. */
export interface NatsServerUnderTest {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `nats-server` on loopback (JetStream on when asked) and resolves once it accepts clients. */
export async function startNatsServer(
  options: { jetstream?: boolean; storeDir?: string } = {},
): Promise<NatsServerUnderTest> {
  const path = natsServerPath();
  if (!path) throw new Error('nats-server is not installed (.ci/run installs it)');
  const port = await freePort();
  const args = ['-a', '127.0.0.1', '-p', String(port)];
  if (options.jetstream) args.push('-js', ...(options.storeDir ? ['-sd', options.storeDir] : []));
  const child = spawn(path, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  reapOnExit(child);
  await new Promise<void>((resolve, reject) => {
    let log = '';
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes('Server is ready')) {
        child.stderr.off('data', onData);
        child.stderr.resume();
        resolve();
      }
    };
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`nats-server exited (${code}): ${log.slice(-500)}`)));
  });
  return {
    url: `nats://127.0.0.1:${port}`,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}
