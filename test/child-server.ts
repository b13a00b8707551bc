import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { reapOnExit } from './doubles/reap.js';

const ROOT = resolve(import.meta.dirname, '..');

/** The server as a child process (`tsx http/main.ts`), for restart and crash tests. */
export interface ChildServer {
  url: string;
  process: ChildProcess;
  /** Kills with `signal` and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts the server's entry point on an ephemeral port and waits for its "listening" line: from the
 * TypeScript sources through tsx, or with `compiled` the JavaScript `npm start` runs (`dist/`, built).
 */
export function startChildServer(
  env: Record<string, string>,
  options: { compiled?: boolean } = {},
): Promise<ChildServer> {
  const args = options.compiled ? ['dist/http/main.js'] : ['--import', 'tsx', 'http/main.ts'];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', SVC_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  reapOnExit(child);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolveStart, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr}`)), 20_000);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /svc listening on (\d+)/.exec(out);
      if (!match) return;
      clearTimeout(timer);
      resolveStart({
        url: `http://127.0.0.1:${match[1]}`,
        process: child,
        kill: (signal = 'SIGKILL') =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill(signal);
          }),
      });
    });
  });
}
