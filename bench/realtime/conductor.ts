// The conversation between the bench's main thread and its realtime client workers: a worker
// reports phases (`opened`, `measuring`, …) with a few numbers, and waits for the main thread's
// commands (`ping`, `start`), so several workers move through a run together.
import { parentPort } from 'node:worker_threads';

/** A phase a worker reached, with figures for the progress line. */
export interface PhaseReport {
  phase: string;
  data: Record<string, number>;
}

/** Messages a realtime worker posts. */
export type RealtimeWorkerMessage =
  ({ type: 'phase' } & PhaseReport) | { type: 'result'; stats: unknown } | { type: 'error'; message: string };

/** Messages the main thread posts to a realtime worker. */
export type RealtimeCommand = { type: 'command'; command: string };

/** A client's side of the conversation. */
export interface Conductor {
  /** Tells the main thread a phase was reached. */
  report(phase: string, data?: Record<string, number>): void;
  /** Resolves once the main thread has said `command` (at once if it already has). */
  wait(command: string): Promise<void>;
}

/** The conductor of a worker thread: reports go to the parent, commands come from it. */
export function workerConductor(): Conductor {
  const said = new Set<string>();
  const waiting = new Map<string, () => void>();
  parentPort!.on('message', (message: RealtimeCommand) => {
    said.add(message.command);
    waiting.get(message.command)?.();
  });
  return {
    report: (phase, data = {}) =>
      parentPort!.postMessage({ type: 'phase', phase, data } satisfies RealtimeWorkerMessage),
    wait: (command) =>
      said.has(command) ? Promise.resolve() : new Promise((resolve) => waiting.set(command, resolve)),
  };
}
