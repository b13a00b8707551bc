import type { Worker } from 'node:worker_threads';
import { startTsWorker } from '../../runtime/ts-worker.js';
import type { PhaseReport, RealtimeCommand, RealtimeWorkerMessage } from './conductor.js';
import type { RealtimeWorkerData } from './realtime-worker.js';

const WORKER_URL = new URL('./realtime-worker.ts', import.meta.url).href;

/** Client workers of one realtime run, driven together from the main thread. */
export interface RealtimeWorkers<Stats> {
  /** Resolves with every worker's report once all of them reached `phase`. */
  reached(phase: string): Promise<PhaseReport[]>;
  /** Tells every worker `command`. */
  command(command: string): void;
  /** Every worker's result, in order. */
  results: Promise<Stats[]>;
  /** Terminates the workers (their results then reject). */
  stop(): void;
}

/**
 * Starts one `worker_threads` worker per entry of `data` (booted through tsx, as the other load
 * clients are). `onPhase` sees every report as it arrives. The workers are terminated, and
 * everything pending rejects, if they have not all reported a result within `deadlineMs`.
 */
export function startRealtimeWorkers<Stats>(
  data: RealtimeWorkerData[],
  deadlineMs: number,
  onPhase?: (worker: number, report: PhaseReport) => void,
): RealtimeWorkers<Stats> {
  const workers: Worker[] = data.map((workerData) => startTsWorker(WORKER_URL, { workerData }));
  const phases = data.map(() => new Map<string, PhaseReport>());
  const phaseWaiters: { phase: string; resolve: (reports: PhaseReport[]) => void; reject: (err: Error) => void }[] = [];
  const results: Stats[] = [];
  const reported = new Set<number>();
  let failure: Error | null = null;
  let resolveAll!: (stats: Stats[]) => void;
  let rejectAll!: (err: Error) => void;
  const all = new Promise<Stats[]>((resolve, reject) => {
    resolveAll = resolve;
    rejectAll = reject;
  });
  all.catch(() => undefined); // whoever awaits only `reached` must not see an unhandled rejection

  const stop = () => {
    clearTimeout(deadline);
    for (const worker of workers) void worker.terminate();
  };
  const fail = (err: Error) => {
    if (failure) return;
    failure = err;
    stop();
    rejectAll(err);
    for (const waiter of phaseWaiters.splice(0)) waiter.reject(err);
  };
  const checkPhases = () => {
    for (const waiter of [...phaseWaiters]) {
      if (!phases.every((seen) => seen.has(waiter.phase))) continue;
      phaseWaiters.splice(phaseWaiters.indexOf(waiter), 1);
      waiter.resolve(phases.map((seen) => seen.get(waiter.phase)!));
    }
  };
  const deadline = setTimeout(
    () => fail(new Error(`realtime client workers overran their ${deadlineMs} ms deadline`)),
    deadlineMs,
  );

  for (const [index, worker] of workers.entries()) {
    worker.on('message', (message: RealtimeWorkerMessage) => {
      if (message.type === 'phase') {
        phases[index]!.set(message.phase, message);
        onPhase?.(index, message);
        checkPhases();
      } else if (message.type === 'result') {
        results[index] = message.stats as Stats;
        reported.add(index);
        if (reported.size === workers.length) {
          clearTimeout(deadline);
          resolveAll(results);
          for (const done of workers) void done.terminate();
        }
      } else fail(new Error(`realtime client worker ${index} failed: ${message.message}`));
    });
    worker.on('error', (err) => fail(err));
    worker.on('exit', (code) => {
      if (!reported.has(index)) fail(new Error(`realtime client worker ${index} exited with ${code} before reporting`));
    });
  }

  return {
    reached: (phase) =>
      failure
        ? Promise.reject(failure)
        : new Promise((resolve, reject) => {
            phaseWaiters.push({ phase, resolve, reject });
            checkPhases();
          }),
    command: (command) => {
      for (const worker of workers) worker.postMessage({ type: 'command', command } satisfies RealtimeCommand);
    },
    results: all,
    stop,
  };
}
