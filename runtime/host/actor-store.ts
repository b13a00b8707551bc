import type { Store, Table } from '../store/store.js';
import { ActorLog, type LogEvent } from './actor-log.js';

/** An actor as stored: its machine by name, owner, persisted snapshot and log position. */
export interface ActorRecord {
  id: string;
  machine: string;
  ownerId: string;
  snapshot: unknown;
  /** The seq the next logged event gets; the log holds 1 … nextSeq − 1. */
  nextSeq: number;
  done: boolean;
  createdAt: number;
  updatedAt: number;
}

/**
 * Where actors persist: their records (snapshot and log position), their event logs and an index
 * by owner, in the store. A transition's record and events commit in one transaction.
 */
export class ActorStore {
  private readonly records: Table<ActorRecord>;
  private readonly byOwner: Table<true>;
  readonly log: ActorLog;

  constructor(private readonly store: Store) {
    this.records = store.table<ActorRecord>('actors');
    this.byOwner = store.table<true>('actors_by_owner');
    this.log = new ActorLog(store);
  }

  /** Lists a new actor under its owner (before its first state commits; readers skip it until then). */
  index(record: ActorRecord): void {
    void this.byOwner.put(ownerKey(record), true);
  }

  /** Drops the owner index entry of an actor that never committed. */
  unindex(record: ActorRecord): void {
    void this.byOwner.remove(ownerKey(record));
  }

  /** Commits a transition: the record and the events it emitted, atomically. */
  commit(record: ActorRecord, events: readonly LogEvent[]): Promise<void> {
    return this.store.transaction(() => {
      void this.records.put(record.id, record);
      this.log.appendInTransaction(record.id, events);
    });
  }

  /** The stored record of `id`. */
  get(id: string): ActorRecord | undefined {
    return this.records.get(id);
  }

  /** Ids of one machine's actors owned by `ownerId`, newest first. */
  *idsOwned(machine: string, ownerId: string): Iterable<string> {
    const range = this.byOwner.getRange({ start: [machine, ownerId, Number.MAX_SAFE_INTEGER], end: [machine, ownerId, 0], reverse: true });
    for (const { key } of range) yield (key as [string, string, number, string])[3];
  }

  /** Every stored record not yet done, for rehydration. */
  *unfinished(): Iterable<ActorRecord> {
    for (const { value } of this.records.getRange()) if (!value.done) yield value;
  }

  /** The committed log of `id` with `after < seq <= upTo`, at most `limit` events. */
  read(id: string, after: number, upTo: number, limit?: number): LogEvent[] {
    return this.log.read(id, after, upTo, limit);
  }

  /** Deletes an actor's record, log and index entry. */
  remove(id: string): Promise<void> {
    const record = this.records.get(id);
    return this.store.transaction(() => {
      if (record) void this.byOwner.remove(ownerKey(record));
      void this.records.remove(id);
      this.log.removeInTransaction(id);
    });
  }
}

function ownerKey(record: ActorRecord): [string, string, number, string] {
  return [record.machine, record.ownerId, record.createdAt, record.id];
}
