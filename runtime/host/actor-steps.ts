import type { Store, Table } from '../store/store.js';
import { fullStep, isDelta, type StoredStep } from './step-delta.js';

/** One committed transition of an actor as time travel shows it: the state and context after it. */
export interface ActorStep {
  /** 1 for the first committed state, then one more per commit. */
  step: number;
  ts: number;
  /** The event that caused it when the host knows it (sent through the host, a deadline, start), else null. */
  cause: string | null;
  /** The last log seq committed with this step: the state after event `seq` is the first step with `upToSeq >= seq`. */
  upToSeq: number;
  status: string;
  value: unknown;
  context: unknown;
}

/**
 * The per-actor step history behind time travel: key `[actorId, step]`, written in the same
 * transaction as the record and events it belongs to, so it is as durable as the actor itself.
 * Most steps are stored as a change to the previous one (step-delta.ts); reads rebuild full steps
 * from the nearest full one at or before them. A step whose chain misses a link (a commit before it
 * failed) cannot be rebuilt and is left out.
 */
export class ActorSteps {
  private readonly table: Table<StoredStep>;

  constructor(store: Store) {
    this.table = store.table<StoredStep>('actor_steps');
  }

  /** Appends inside the caller's transaction. */
  appendInTransaction(actorId: string, step: StoredStep): void {
    void this.table.put([actorId, step.step], step);
  }

  /** Steps with `step > after`, oldest first, at most `limit`. */
  read(actorId: string, after: number, limit: number): ActorStep[] {
    const out: ActorStep[] = [];
    let previous: ActorStep | undefined;
    for (const { value } of this.table.getRange({
      start: [actorId, after + 1],
      end: [actorId, Number.MAX_SAFE_INTEGER],
      limit,
    })) {
      if (isDelta(value) && previous === undefined) previous = this.rebuild(actorId, value.step - 1);
      previous = fullStep(previous, value);
      if (previous) out.push(previous);
    }
    return out;
  }

  /** The state after log event `seq`: the first step that committed it (or a later one). */
  afterSeq(actorId: string, seq: number): ActorStep | undefined {
    // Steps are few per actor next to a scan's cost; the first with upToSeq >= seq answers, rebuilt
    // from the steps since the last full one.
    let chain: StoredStep[] = [];
    for (const { value } of this.table.getRange({ start: [actorId, 1], end: [actorId, Number.MAX_SAFE_INTEGER] })) {
      if (!isDelta(value)) chain = [];
      chain.push(value);
      if (value.upToSeq >= seq) return fold(chain);
    }
    return undefined;
  }

  /** Full step `step` of `actorId`, from the nearest full step at or before it. */
  private rebuild(actorId: string, step: number): ActorStep | undefined {
    const chain: StoredStep[] = [];
    for (const { value } of this.table.getRange({ start: [actorId, step], end: [actorId, 0], reverse: true })) {
      chain.push(value);
      if (!isDelta(value)) return fold(chain.reverse());
    }
    return undefined;
  }

  /** Deletes an actor's steps inside the caller's transaction. */
  removeInTransaction(actorId: string): void {
    for (const key of this.table.getKeys({ start: [actorId, 0], end: [actorId, Number.MAX_SAFE_INTEGER] }))
      void this.table.remove(key);
  }
}

/** The full last step of `chain`: a full step, then changes, in order. */
function fold(chain: readonly StoredStep[]): ActorStep | undefined {
  let step: ActorStep | undefined;
  for (const stored of chain) step = fullStep(step, stored);
  return step;
}
