// Worker entry: one client thread of a `serve` sweep. Builds its own prompts and connections, sends
// one unmeasured request (its code warm, its connection open), then runs each point it is sent
// and posts progress and the timings back (see client-threads.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { seededRandom } from './prompt-source.js';
import { runPoint, type ClientLoad, type PointLoad, type PointProgress } from './run-point.js';
import type { ServeOptions } from './serve-options.js';
import { promptsOf, targetOf } from './serve-target.js';
import { timeRequest, type RequestTiming } from './stream-request.js';

/** A point for this thread: its share of the load and where its prompt numbers start. */
export interface ThreadPoint {
  label: string;
  load: Omit<PointLoad, 'random'>;
  firstIndex: number;
  stride: number;
}

/** Messages this worker posts to its parent. */
export type ThreadMessage =
  | { type: 'ready' }
  | ({ type: 'progress' } & PointProgress)
  | { type: 'result'; timings: RequestTiming[]; client: ClientLoad }
  | { type: 'error'; message: string };

const { options, thread } = workerData as { options: ServeOptions; thread: number };
const post = (message: ThreadMessage) => parentPort!.postMessage(message);
const prompts = promptsOf(options);
const random = seededRandom((options.seed ^ 0x5eed) + thread);
const target = targetOf(options);

parentPort!.on('message', (point: ThreadPoint) => {
  runPoint({
    label: point.label,
    target,
    prompts,
    firstIndex: point.firstIndex,
    stride: point.stride,
    load: { ...point.load, random },
    onProgress: (progress) => post({ type: 'progress', ...progress }),
  }).then(
    (result) => post({ type: 'result', ...result }),
    (err: unknown) => post({ type: 'error', message: err instanceof Error ? err.message : String(err) }),
  );
});

// The main thread's warm-up already checked the target: this one only warms the thread (prompt numbers below 0 are never measured).
await timeRequest(target, prompts(0), -1 - thread, performance.now());
post({ type: 'ready' });
