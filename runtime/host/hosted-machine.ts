import type { AnyStateMachine } from 'xstate';
import type { LogEvent } from './actor-log.js';
import type { ActorStep } from './actor-steps.js';
import type { ActorRecord, UnfinishedEntry } from './actor-store.js';

/** A machine the host can run, registered by name so the host knows no domain. */
export interface HostedMachine {
  name: string;
  logic: AnyStateMachine;
  /** Called when an unfinished actor is brought back after a restart, before it starts. */
  onRehydrate?(record: ActorRecord): void;
  /**
   * Whether an actor in this persisted state may stay parked in the store after a restart until an
   * event or one of its deadlines reaches it: it waits for nothing else and holds nothing that
   * `onRehydrate` must restore at once (money held, a step to resume). Default: never parked.
   */
  parks?(persisted: unknown): boolean;
}

/** One committed transition, as observers (the inspector) see it. */
export interface CommittedTransition {
  id: string;
  machine: string;
  ownerId: string;
  /** The persisted snapshot after the transition. */
  snapshot: unknown;
  events: readonly LogEvent[];
  done: boolean;
  /** The step written to the history (null when the host keeps none). */
  step: ActorStep | null;
}

/** How an unfinished actor comes back after a restart, from its persisted record (deadlines are data in its context). */
export function unfinishedEntry(machine: HostedMachine | undefined, record: Pick<ActorRecord, 'machine' | 'snapshot'>): UnfinishedEntry {
  const deadlines = (record.snapshot as { context?: { deadlines?: UnfinishedEntry['deadlines'] } } | null)?.context?.deadlines ?? {};
  return { machine: record.machine, parked: machine?.parks?.(record.snapshot) ?? false, deadlines };
}

/** An entry as a string, to tell whether a commit changed it. */
export const entryKey = (entry: UnfinishedEntry): string => `${entry.parked ? 'p' : 'a'}${JSON.stringify(entry.deadlines)}`;
