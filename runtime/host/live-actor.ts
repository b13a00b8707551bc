import type { AnyActorRef, Snapshot } from 'xstate';
import type { LogEvent } from './actor-log.js';
import type { ActorStep } from './actor-steps.js';
import type { ActorRecord, CommitContent, UnfinishedEntry } from './actor-store.js';
import { entryKey, unfinishedEntry, type HostedMachine } from './hosted-machine.js';
import { encodeStep, type StepBase, type StoredStep } from './step-delta.js';

/** An actor in memory as the host keeps it: the XState actor and where its commits stand. */
export interface Live {
  /** The last committed record: what readers see, so nothing they read can be lost in a crash. */
  record: ActorRecord;
  /** The seq the next emitted event gets. */
  nextSeq: number;
  actor: AnyActorRef;
  buffer: LogEvent[];
  committedSeq: number;
  lastCommit: Promise<void>;
  /** Detaches the host's listeners, so stopping the actor is not mistaken for it finishing. */
  detach: () => void;
  /** Set while a rehydrated actor starts. */
  restoring: boolean;
  /** Why the actor was halted: a transition that could not be persisted. */
  failed: Error | null;
  /** The event the host last handed the actor (for the step history), until the next commit takes it. */
  cause: string | null;
  /** Steps written so far (ahead of `record` while commits are in flight). */
  steps: number;
  /** The last step written, which the next is stored as a change to (null: unknown, the next is stored full). */
  stepBase: StepBase | null;
  /** The unfinished-index entry last written, as a string to compare (null: none yet). */
  indexed: string | null;
  /** Whether the state last committed is one its machine parks in. */
  parks: boolean;
  /** Commits in flight: until they land, the record trails the actor. */
  pending: number;
  /** The commit asked of the store whose write has not started (later transitions join it); null when none. */
  queued: QueuedCommit | null;
  /** Callers holding the actor in memory (waiting on it, inspecting it): it is not parked while any do. */
  holds: number;
}

/**
 * A commit waiting for the store to start its write. The transitions the actor makes until then
 * join it: their events are appended and one snapshot, the latest, is written for all of them.
 * Nothing is shown to a client before it is durable, so joining changes what is written, not what
 * is promised.
 */
export interface QueuedCommit {
  /** The snapshot of the last transition that joined. */
  snapshot: Snapshot<unknown>;
  /** The events of every transition that joined, in order. */
  events: LogEvent[];
  /** The seq the next emitted event gets, after the last transition that joined. */
  nextSeq: number;
  transitions: number;
  /** Whether the write started (then nothing joins any more, and `written` is final). */
  sealed: boolean;
  /** What was written (null: nothing, the actor had been halted). */
  written: CommitContent | null;
}

/** A fresh in-memory entry for `actor`, starting from its committed `record`. */
export function createLive(record: ActorRecord, actor: AnyActorRef): Live {
  return {
    record,
    nextSeq: record.nextSeq,
    actor,
    buffer: [],
    committedSeq: record.nextSeq - 1,
    lastCommit: Promise.resolve(),
    detach: () => {},
    restoring: false,
    failed: null,
    cause: null,
    steps: record.steps ?? 0,
    stepBase: null,
    indexed: null,
    parks: false,
    pending: 0,
    queued: null,
    holds: 0,
  };
}

/**
 * The unfinished-index entry a commit of `record` must write (null: remove it, the actor is done),
 * or undefined when unchanged; notes on `live` whether the state parks.
 */
export function indexChange(
  live: Live,
  record: ActorRecord,
  machine: HostedMachine | undefined,
): UnfinishedEntry | null | undefined {
  if (record.done) return live.indexed === 'done' ? undefined : ((live.indexed = 'done'), null);
  const entry = unfinishedEntry(machine, record);
  live.parks = entry.parked;
  const key = entryKey(entry);
  if (key === live.indexed) return undefined;
  live.indexed = key;
  return entry;
}

/**
 * The history step of a commit of `record`: the state and context after it, and what caused it
 * when known; with how the store keeps it (a change to the actor's previous step, mostly).
 */
export function historyStep(live: Live, record: ActorRecord, status: string): { step: ActorStep; stored: StoredStep } {
  const number = ++live.steps;
  record.steps = number;
  const { value, context } = record.snapshot as { value?: unknown; context?: unknown };
  const step = {
    step: number,
    ts: record.updatedAt,
    cause: live.cause,
    upToSeq: record.nextSeq - 1,
    status,
    value,
    context,
  };
  const { stored, base } = encodeStep(live.stepBase, step);
  live.stepBase = base;
  return { step, stored };
}

/**
 * Decides when an actor in memory leaves it: once the current turn of work is over, if it is then
 * idle (in a state its machine parks in, every commit landed, nobody holding it, still the one in
 * memory). Deferred to the end of the turn so a check followed by a send (accepts, then send) does
 * not rehydrate the actor twice; all candidates of a turn share one `setImmediate`.
 */
export class IdleParking {
  private readonly queue = new Set<Live>();
  private timer: NodeJS.Immediate | null = null;

  constructor(
    /** Whether `live` is still the actor in memory under its id. */
    private readonly current: (live: Live) => boolean,
    /** Takes an idle actor out of memory. */
    private readonly park: (live: Live) => void,
  ) {}

  /** Parks `live` at the end of this turn if it is idle then. */
  whenIdle(live: Live): void {
    if (!live.parks) return;
    this.queue.add(live);
    this.timer ??= setImmediate(() => {
      this.timer = null;
      const queued = [...this.queue];
      this.queue.clear();
      for (const candidate of queued) if (this.isIdle(candidate)) this.park(candidate);
    });
  }

  /** Holds `live` in memory until the returned release is called (then it may park). */
  hold(live: Live): () => void {
    live.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      live.holds--;
      this.whenIdle(live);
    };
  }

  /** Forgets every candidate (the host is closing). */
  clear(): void {
    if (this.timer) clearImmediate(this.timer);
    this.timer = null;
    this.queue.clear();
  }

  private isIdle(live: Live): boolean {
    return (
      live.parks &&
      live.pending === 0 &&
      live.holds === 0 &&
      live.buffer.length === 0 &&
      !live.failed &&
      this.current(live)
    );
  }
}
