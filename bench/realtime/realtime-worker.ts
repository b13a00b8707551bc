// Worker entry of the realtime scenarios: runs one client (idle or active) off the main thread,
// reporting phases through the conductor, then posts the result.
import { parentPort, workerData } from 'node:worker_threads';
import { runActiveClient, type ActiveClientOptions } from './active-client.js';
import { workerConductor, type RealtimeWorkerMessage } from './conductor.js';
import { runIdleClient, type IdleClientOptions } from './idle-client.js';

/** What the worker is told to run. */
export type RealtimeWorkerData =
  { kind: 'idle'; options: IdleClientOptions } | { kind: 'active'; options: ActiveClientOptions };

const post = (message: RealtimeWorkerMessage) => parentPort!.postMessage(message);
const data = workerData as RealtimeWorkerData;
const conductor = workerConductor();
const run = data.kind === 'idle' ? runIdleClient(data.options, conductor) : runActiveClient(data.options, conductor);

run.then(
  (stats) => post({ type: 'result', stats }),
  (err: unknown) => post({ type: 'error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
);
