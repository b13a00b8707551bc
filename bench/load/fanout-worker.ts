// Worker entry of the session-fanout scenario: runs the followers off the main thread, posts
// `ready` once every follower has its history, then the result.
import { parentPort, workerData } from 'node:worker_threads';
import { runFanout, type FanoutOptions, type FanoutProgress, type FanoutStats } from './fanout-client.js';

/** Messages this worker posts to its parent. */
export type FanoutWorkerMessage =
  ({ type: 'progress' } & FanoutProgress) | { type: 'result'; stats: FanoutStats } | { type: 'error'; message: string };

const post = (message: FanoutWorkerMessage) => parentPort!.postMessage(message);

runFanout(workerData as FanoutOptions, (progress) => post({ type: 'progress', ...progress })).then(
  (stats) => post({ type: 'result', stats }),
  (err: unknown) => post({ type: 'error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
);
