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
   * Whether an actor in this persisted state may wait parked in the store, out of memory, until an
   * event or one of its deadlines reaches it (after a restart, and on a running server once nobody
   * holds it): it waits for nothing else and holds nothing that `onRehydrate` must restore at once
   * (money held, a step to resume). Default: never parked.
   */
  parks?(persisted: unknown): boolean;
  /**
   * Whether the record of an actor of this machine is deleted with its history once the retention
   * after its end has passed (nothing reads it then). Default: the record (its final state) stays.
   */
  forgetAfterRetention?: boolean;
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
export function unfinishedEntry(
  machine: HostedMachine | undefined,
  record: Pick<ActorRecord, 'machine' | 'ownerId' | 'snapshot'>,
): UnfinishedEntry {
  const deadlines =
    (record.snapshot as { context?: { deadlines?: UnfinishedEntry['deadlines'] } } | null)?.context?.deadlines ?? {};
  return {
    machine: record.machine,
    ownerId: record.ownerId,
    parked: machine?.parks?.(record.snapshot) ?? false,
    deadlines,
  };
}

/** An entry as a string, to tell whether a commit changed it. */
export const entryKey = (entry: UnfinishedEntry): string =>
  `${entry.parked ? 'p' : 'a'}${JSON.stringify(entry.deadlines)}`;
