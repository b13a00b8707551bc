import type { Snapshot } from 'xstate';
import type { LogEvent } from './actor-log.js';
import type { ActorStep } from './actor-steps.js';
import type { ActorRecord, ActorStore, CommitContent } from './actor-store.js';
import type { HostedMachine } from './hosted-machine.js';
import { historyStep, indexChange, type Live, type QueuedCommit } from './live-actor.js';
import type { StepSpans } from './step-spans.js';

/** What the host does with a commit's outcome: show what is durable, or stop the actor that could not persist. */
export interface CommitOutcomes {
  landed(
    live: Live,
    content: Pick<CommitContent, 'record' | 'events'>,
    snapshot: Snapshot<unknown>,
    step: ActorStep | null,
    transitions: number,
  ): void;
  halt(live: Live, err: unknown): void;
}

/**
 * Writes an actor's transitions to the store. With a step history or step spans every transition
 * is its own commit (each step is kept); otherwise a transition made while the actor's commit still
 * waits for the store joins it, and one snapshot is written for all of them.
 */
export class ActorCommits {
  constructor(
    private readonly stored: ActorStore,
    private readonly now: () => number,
    private readonly machineOf: (name: string) => HostedMachine | undefined,
    private readonly history: boolean,
    private readonly stepSpans: StepSpans | null,
    private readonly host: CommitOutcomes,
  ) {}

  /** Writes the transition that left the actor at `snapshot`, with the events it emitted. */
  write(live: Live, snapshot: Snapshot<unknown>, events: LogEvent[]): void {
    // With a step history or step spans every transition is its own commit (each step is kept).
    if (this.history || this.stepSpans) return this.step(live, snapshot, events);
    const queued = live.queued;
    if (queued) {
      // Its write has not started: this transition goes in with it, and one snapshot is written for both.
      queued.snapshot = snapshot;
      queued.nextSeq = live.nextSeq;
      for (const event of events) queued.events.push(event);
      queued.transitions++;
      return;
    }
    const commit: QueuedCommit = {
      snapshot,
      events,
      nextSeq: live.nextSeq,
      transitions: 1,
      sealed: false,
      written: null,
    };
    live.queued = commit;
    live.pending++;
    live.lastCommit = this.stored
      .commitLatest(() => this.seal(live, commit))
      .finally(() => live.pending--)
      .then(() => {
        if (commit.written) this.host.landed(live, commit.written, commit.snapshot, null, commit.transitions);
      })
      .catch((err: unknown) => this.host.halt(live, err));
  }

  /**
   * What `commit` writes, fixed when the store starts the write: the actor as its last joined
   * transition left it (nothing runs between a transition and its notification, so the actor's
   * snapshot now is that one's), or nothing once the actor was halted.
   */
  private seal(live: Live, commit: QueuedCommit): CommitContent | null {
    if (commit.sealed) return commit.written;
    commit.sealed = true;
    if (live.queued === commit) live.queued = null;
    if (live.failed) return null;
    const record: ActorRecord = {
      ...live.record,
      snapshot: live.actor.getPersistedSnapshot(),
      nextSeq: commit.nextSeq,
      done: commit.snapshot.status !== 'active',
      updatedAt: this.now(),
    };
    const unfinished = indexChange(live, record, this.machineOf(record.machine));
    return (commit.written = { record, events: commit.events, unfinished });
  }

  /** One transition, one commit, with its step (history on) and its span (tracing on). */
  private step(live: Live, snapshot: Snapshot<unknown>, events: LogEvent[]): void {
    const done = snapshot.status !== 'active';
    let persisted: unknown;
    try {
      persisted = live.actor.getPersistedSnapshot();
    } catch (err) {
      // Thrown here it would escape through XState's subscription and end the process.
      this.host.halt(live, err);
      return;
    }
    const record: ActorRecord = {
      ...live.record,
      snapshot: persisted,
      nextSeq: live.nextSeq,
      done,
      updatedAt: this.now(),
    };
    const history = this.history ? historyStep(live, record, snapshot.status) : null;
    const step = history?.step ?? null;
    const span = this.stepSpans?.step(record, live.cause, (snapshot as { value?: unknown }).value);
    live.cause = null;
    live.pending++;
    const unfinished = indexChange(live, record, this.machineOf(record.machine));
    live.lastCommit = this.stored
      .commit(record, events, history?.stored, unfinished)
      .finally(() => {
        live.pending--;
        span?.end();
      })
      .then(() => this.host.landed(live, { record, events }, snapshot, step, 1))
      .catch((err: unknown) => this.host.halt(live, err));
  }
}
