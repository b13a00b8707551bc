import type { Store, Table } from '../store/store.js';

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
 */
export class ActorSteps {
  private readonly table: Table<ActorStep>;

  constructor(store: Store) {
    this.table = store.table<ActorStep>('actor_steps');
  }

  /** Appends inside the caller's transaction. */
  appendInTransaction(actorId: string, step: ActorStep): void {
    void this.table.put([actorId, step.step], step);
  }

  /** Steps with `step > after`, oldest first, at most `limit`. */
  read(actorId: string, after: number, limit: number): ActorStep[] {
    const out: ActorStep[] = [];
    for (const { value } of this.table.getRange({
      start: [actorId, after + 1],
      end: [actorId, Number.MAX_SAFE_INTEGER],
      limit,
    }))
      out.push(value);
    return out;
  }

  /** The state after log event `seq`: the first step that committed it (or a later one). */
  afterSeq(actorId: string, seq: number): ActorStep | undefined {
    // Steps are few per actor next to a scan's cost; the first with upToSeq >= seq answers.
    for (const { value } of this.table.getRange({ start: [actorId, 1], end: [actorId, Number.MAX_SAFE_INTEGER] }))
      if (value.upToSeq >= seq) return value;
    return undefined;
  }

  /** Deletes an actor's steps inside the caller's transaction. */
  removeInTransaction(actorId: string): void {
    for (const key of this.table.getKeys({ start: [actorId, 0], end: [actorId, Number.MAX_SAFE_INTEGER] }))
      void this.table.remove(key);
  }
}
