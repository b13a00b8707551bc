// Worker entry: runs one load run off the main thread and posts progress, then the result.
import { parentPort, workerData } from 'node:worker_threads';
import { runLoad, type LoadOptions, type LoadProgress, type LoadStats } from './load-client.js';

/** Messages this worker posts to its parent. */
export type ClientWorkerMessage =
  ({ type: 'progress' } & LoadProgress) | { type: 'result'; stats: LoadStats } | { type: 'error'; message: string };

const post = (message: ClientWorkerMessage) => parentPort!.postMessage(message);

runLoad(workerData as LoadOptions, (progress) => post({ type: 'progress', ...progress })).then(
  (stats) => post({ type: 'result', stats }),
  (err: unknown) => post({ type: 'error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
);
