import { startTsWorker } from '../../runtime/ts-worker.js';
import type { ClientWorkerMessage } from './client-worker.js';
import type { LoadOptions, LoadProgress, LoadStats } from './load-client.js';

const WORKER_URL = new URL('./client-worker.ts', import.meta.url).href;

/**
 * Runs one load run in a `worker_threads` worker, so the client has a thread (and, on two cores,
 * a core) of its own and never shares an event loop with an in-process server or the sampler.
 * The worker loads TypeScript through tsx's `tsImport` (Node 20 workers do not inherit loader
 * hooks). It is terminated if it overruns its window by more than 30 s.
 */
export function runLoadInWorker(
  options: LoadOptions,
  onProgress?: (progress: LoadProgress) => void,
): Promise<LoadStats> {
  const worker = startTsWorker(WORKER_URL, { workerData: options });
  const deadlineMs = options.warmupMs + options.durationMs + options.timeoutMs + 30_000;
  return new Promise<LoadStats>((resolve, reject) => {
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      fn();
      void worker.terminate();
    };
    const deadline = setTimeout(
      () => finish(() => reject(new Error(`load worker overran its ${deadlineMs} ms deadline`))),
      deadlineMs,
    );
    worker.on('message', (message: ClientWorkerMessage) => {
      if (message.type === 'progress') onProgress?.(message);
      else if (message.type === 'result') finish(() => resolve(message.stats));
      else finish(() => reject(new Error(`load worker failed: ${message.message}`)));
    });
    worker.on('error', (err) => finish(() => reject(err)));
    worker.on('exit', (code) => finish(() => reject(new Error(`load worker exited with ${code} before reporting`))));
  });
}
