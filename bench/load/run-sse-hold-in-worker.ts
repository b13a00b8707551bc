import { startTsWorker } from '../../runtime/ts-worker.js';
import type { HoldOptions, HoldPhase, HoldStats } from './sse-hold-client.js';
import type { HoldWorkerMessage } from './sse-hold-worker.js';

const WORKER_URL = new URL('./sse-hold-worker.ts', import.meta.url).href;

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(err: Error): void;
}

// Promise.withResolvers arrives with Node 22.
function deferred<T>(): Deferred<T> {
  const out = {} as Deferred<T>;
  out.promise = new Promise<T>((resolve, reject) => Object.assign(out, { resolve, reject }));
  return out;
}

/** An sse-hold client in progress: `opened` once every stream is open (or failed), `held` at the hold's end, `result` after the abort. */
export interface RunningHold {
  opened: Promise<{ opened: number; failed: number }>;
  held: Promise<undefined>;
  result: Promise<HoldStats>;
  /** Terminates the worker (everything pending then rejects). */
  stop(): void;
}

/**
 * Starts the client in a `worker_threads` worker (booted through tsx, as the other load clients
 * are), so it never shares an event loop with the main thread, which samples the server.
 * `onOpening` sees the count every second while opening. The worker is terminated after `deadlineMs`.
 */
export function runSseHoldInWorker(
  options: HoldOptions,
  deadlineMs: number,
  onOpening?: (opened: number, failed: number) => void,
): RunningHold {
  const worker = startTsWorker(WORKER_URL, { workerData: options });
  const waiters = {
    opened: deferred<{ opened: number; failed: number }>(),
    held: deferred<undefined>(),
    result: deferred<HoldStats>(),
  };
  // Whoever awaits only a later phase must not see an unhandled rejection of an earlier one.
  for (const waiter of Object.values(waiters)) waiter.promise.catch(() => undefined);
  let settled = false;
  const finish = (fn: () => void) => {
    if (settled) return;
    settled = true;
    clearTimeout(deadline);
    fn();
    void worker.terminate();
  };
  const fail = (err: Error) =>
    finish(() => {
      for (const waiter of Object.values(waiters)) waiter.reject(err);
    });
  const deadline = setTimeout(
    () => fail(new Error(`sse-hold worker overran its ${deadlineMs} ms deadline`)),
    deadlineMs,
  );
  worker.on('message', (message: HoldWorkerMessage) => {
    if (message.type === 'error') return fail(new Error(`sse-hold worker failed: ${message.message}`));
    if (message.type === 'result') return finish(() => waiters.result.resolve(message.stats));
    const phase: HoldPhase = message;
    if (phase.phase === 'opening') onOpening?.(phase.opened, phase.failed);
    else if (phase.phase === 'opened') waiters.opened.resolve({ opened: phase.opened, failed: phase.failed });
    else waiters.held.resolve(undefined);
  });
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`sse-hold worker exited with ${code} before reporting`)));
  return {
    opened: waiters.opened.promise,
    held: waiters.held.promise,
    result: waiters.result.promise,
    stop: () => fail(new Error('sse-hold worker stopped')),
  };
}
