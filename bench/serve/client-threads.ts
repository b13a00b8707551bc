import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import { moduleUrl, startTsWorker } from '../../runtime/ts-worker.js';
import type { PointLoad, PointProgress, ClientLoad } from './run-point.js';
import type { ServeOptions } from './serve-options.js';
import type { ThreadMessage, ThreadPoint } from './serve-client-worker.js';
import type { RequestTiming } from './stream-request.js';

const WORKER_URL = moduleUrl('./serve-client-worker.ts', import.meta.url);

/** Splits `total` into `parts` whole shares differing by at most one (null stays null). */
function share(total: number | null, parts: number, part: number): number | null {
  if (total === null) return null;
  return Math.floor(total / parts) + (part < total % parts ? 1 : 0);
}

/**
 * Client worker threads for when one event loop is not enough: each point's users, rate, request
 * count and in-flight cap are split between them (rate: independent gamma processes at rate ÷ N,
 * whose sum is again Poisson at burstiness 1), and their timings are merged onto one time line.
 */
export class ClientThreads {
  private constructor(private readonly workers: Worker[]) {}

  /** Starts `count` threads and waits until each has sent its warm-up request. */
  static async start(options: ServeOptions, count: number): Promise<ClientThreads> {
    const workers = Array.from({ length: count }, (_, thread) =>
      startTsWorker(WORKER_URL, { workerData: { options, thread } }),
    );
    await Promise.all(workers.map((worker) => once(worker, 'message')));
    return new ClientThreads(workers);
  }

  /** Runs one point on every thread; progress is summed over the threads. */
  async runPoint(point: {
    label: string;
    load: Omit<PointLoad, 'random'>;
    firstIndex: number;
    onProgress?: (progress: PointProgress) => void;
  }): Promise<{ timings: RequestTiming[]; client: ClientLoad }> {
    const n = this.workers.length;
    const { load } = point;
    const latest = new Map<number, PointProgress>();
    const results = await Promise.all(
      this.workers.map((worker, thread) => {
        const mine: ThreadPoint = {
          label: point.label,
          firstIndex: point.firstIndex + thread,
          stride: n,
          load: {
            ...load,
            ...(load.concurrency !== undefined && { concurrency: share(load.concurrency, n, thread)! }),
            ...(load.rate !== undefined && { rate: load.rate / n }),
            maxConcurrency: load.maxConcurrency === null ? null : Math.max(1, share(load.maxConcurrency, n, thread)!),
            requests: share(load.requests, n, thread),
          },
        };
        if (mine.load.concurrency === 0 || mine.load.requests === 0)
          return Promise.resolve({
            timings: [] as RequestTiming[],
            client: { eventLoopUtilization: 0, cpuPercent: 0 },
          });
        return new Promise<{ timings: RequestTiming[]; client: ClientLoad }>((resolve, reject) => {
          const listen = (message: ThreadMessage) => {
            if (message.type === 'progress') {
              latest.set(thread, message);
              const all = [...latest.values()];
              point.onProgress?.({
                label: point.label,
                done: all.reduce((s, p) => s + p.done, 0),
                total: load.requests,
                errors: all.reduce((s, p) => s + p.errors, 0),
                elapsedMs: Math.max(...all.map((p) => p.elapsedMs)),
              });
              return;
            }
            worker.off('message', listen);
            if (message.type === 'result') resolve(message);
            else
              reject(new Error(`client thread ${thread}: ${message.type === 'error' ? message.message : 'not ready'}`));
          };
          worker.on('message', listen);
          worker.postMessage(mine);
        });
      }),
    );
    const timings = results.flatMap((r) => r.timings).sort((a, b) => a.sentAt - b.sentAt);
    // Each thread timed from its own start: put every send on one time line from the first.
    const first = timings[0]?.sentAt ?? 0;
    for (const timing of timings) timing.startMs = timing.sentAt - first;
    return {
      timings: timings.sort((a, b) => a.index - b.index),
      client: {
        // The busiest thread is the one whose delay would show.
        eventLoopUtilization: Math.max(...results.map((r) => r.client.eventLoopUtilization)),
        cpuPercent: results[0]?.client.cpuPercent ?? 0, // process-wide: the same reading in every thread
      },
    };
  }

  /** Stops every thread. */
  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }
}
