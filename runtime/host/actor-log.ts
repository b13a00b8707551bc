import type { Store, Table } from '../store/store.js';

/** One entry of an actor's append-only event log. */
export interface LogEvent {
  seq: number;
  type: string;
  ts: number;
  data: Record<string, unknown>;
}

/** The per-actor event logs: key `[actorId, seq]`, seq gap-free from 1. */
export class ActorLog {
  readonly table: Table<LogEvent>;

  constructor(store: Store) {
    this.table = store.table<LogEvent>('actor_events');
  }

  /** Appends inside the caller's transaction. */
  appendInTransaction(actorId: string, events: readonly LogEvent[]): void {
    for (const event of events) void this.table.put([actorId, event.seq], event);
  }

  /** Events with `after < seq <= upTo`, oldest first, at most `limit`. */
  read(actorId: string, after: number, upTo: number, limit = Number.MAX_SAFE_INTEGER): LogEvent[] {
    const out: LogEvent[] = [];
    if (upTo <= after) return out;
    for (const { value } of this.table.getRange({ start: [actorId, after + 1], end: [actorId, upTo + 1], limit }))
      out.push(value);
    return out;
  }

  /** Deletes an actor's whole log inside the caller's transaction. */
  removeInTransaction(actorId: string): void {
    for (const key of this.table.getKeys({ start: [actorId, 0], end: [actorId, Number.MAX_SAFE_INTEGER] }))
      void this.table.remove(key);
  }
}
