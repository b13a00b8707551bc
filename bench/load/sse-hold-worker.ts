// Worker entry of the sse-hold scenario: runs the client off the main thread, posting each phase
// and then the result.
import { parentPort, workerData } from 'node:worker_threads';
import { runHold, type HoldOptions, type HoldPhase, type HoldStats } from './sse-hold-client.js';

/** Messages this worker posts to its parent. */
export type HoldWorkerMessage =
  ({ type: 'phase' } & HoldPhase) | { type: 'result'; stats: HoldStats } | { type: 'error'; message: string };

const post = (message: HoldWorkerMessage) => parentPort!.postMessage(message);

runHold(workerData as HoldOptions, (phase) => post({ type: 'phase', ...phase })).then(
  (stats) => post({ type: 'result', stats }),
  (err: unknown) => post({ type: 'error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
);
