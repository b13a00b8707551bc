import { startTsWorker } from '../../runtime/ts-worker.js';
import type { FanoutOptions, FanoutProgress, FanoutStats } from './fanout-client.js';
import type { FanoutWorkerMessage } from './fanout-worker.js';

const WORKER_URL = new URL('./fanout-worker.ts', import.meta.url).href;

/** A fan-out run in progress: `ready` once every follower has its history, `result` at the end. */
export interface RunningFanout {
  ready: Promise<FanoutProgress>;
  result: Promise<FanoutStats>;
  /** Terminates the worker (its result then rejects). */
  stop(): void;
}

/**
 * Starts the followers in a `worker_threads` worker (booted through tsx's `tsImport`, as
 * run-in-worker.ts does), so the client never shares an event loop with the bench's main thread,
 * which drives the session meanwhile. The worker is terminated if it overruns its deadlines by 30 s.
 */
export function runFanoutInWorker(options: FanoutOptions): RunningFanout {
  const worker = startTsWorker(WORKER_URL, { workerData: options });
  const deadlineMs = options.connectTimeoutMs + options.timeoutMs + 30_000;
  let onReady!: (progress: FanoutProgress) => void;
  let failReady!: (err: Error) => void;
  const ready = new Promise<FanoutProgress>((resolve, reject) => {
    onReady = resolve;
    failReady = reject;
  });
  const result = new Promise<FanoutStats>((resolve, reject) => {
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      fn();
      void worker.terminate();
    };
    const failBoth = (err: Error) => {
      failReady(err);
      finish(() => reject(err));
    };
    const deadline = setTimeout(
      () => failBoth(new Error(`fan-out worker overran its ${deadlineMs} ms deadline`)),
      deadlineMs,
    );
    worker.on('message', (message: FanoutWorkerMessage) => {
      if (message.type === 'progress') onReady(message);
      else if (message.type === 'result') finish(() => resolve(message.stats));
      else failBoth(new Error(`fan-out worker failed: ${message.message}`));
    });
    worker.on('error', failBoth);
    worker.on('exit', (code) => failBoth(new Error(`fan-out worker exited with ${code} before reporting`)));
  });
  // Whoever awaits only `result` must not see an unhandled rejection of `ready`.
  ready.catch(() => undefined);
  result.catch(() => undefined);
  return { ready, result, stop: () => void worker.terminate() };
}
