import type { Store, Table } from '../store/store.js';
import { ActorLog, type LogEvent } from './actor-log.js';
import { ActorSteps, type ActorStep } from './actor-steps.js';

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
  /** Steps committed to the step history (time travel); absent when the host keeps none. */
  steps?: number;
}

/**
 * How an unfinished actor comes back after a restart, kept small so a boot reads it without
 * decoding snapshots: its machine, whether it is parked (it only waits for an event or a deadline,
 * so it stays in the store until one comes) and its deadlines.
 */
export interface UnfinishedEntry {
  machine: string;
  parked: boolean;
  deadlines: Record<string, number | null | undefined>;
}

/** The version of the unfinished index this code writes; a store without it builds it once. */
const UNFINISHED_INDEX_VERSION = 1;

/**
 * Where actors persist: their records (snapshot and log position), their event logs, an index by
 * owner and an index of unfinished actors, in the store. A transition's record, events and index
 * change commit in one transaction.
 */
export class ActorStore {
  private readonly records: Table<ActorRecord>;
  private readonly byOwner: Table<true>;
  private readonly unfinishedIndex: Table<UnfinishedEntry>;
  private readonly meta: Table<number>;
  readonly log: ActorLog;
  readonly steps: ActorSteps;

  constructor(private readonly store: Store) {
    this.records = store.table<ActorRecord>('actors');
    this.byOwner = store.table<true>('actors_by_owner');
    this.unfinishedIndex = store.table<UnfinishedEntry>('actors_unfinished');
    this.meta = store.table<number>('actors_meta');
    this.log = new ActorLog(store);
    this.steps = new ActorSteps(store);
  }

  /** Lists a new actor under its owner (before its first state commits; readers skip it until then). */
  index(record: ActorRecord): void {
    void this.byOwner.put(ownerKey(record), true);
  }

  /** Drops the owner index entry of an actor that never committed. */
  unindex(record: ActorRecord): void {
    void this.byOwner.remove(ownerKey(record));
  }

  /**
   * Commits a transition: the record, the events it emitted, (when kept) its step and (when it
   * changed) its unfinished-index entry, null once it is done, atomically.
   */
  commit(record: ActorRecord, events: readonly LogEvent[], step?: ActorStep, unfinished?: UnfinishedEntry | null): Promise<void> {
    return this.store.transaction(() => {
      void this.records.put(record.id, record);
      this.log.appendInTransaction(record.id, events);
      if (step) this.steps.appendInTransaction(record.id, step);
      if (unfinished === null) void this.unfinishedIndex.remove(record.id);
      else if (unfinished) void this.unfinishedIndex.put(record.id, unfinished);
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

  /**
   * Every unfinished actor by its index entry, for a boot. A store written before the index
   * existed gets it built first, from one scan of the records, with `entryOf` (once).
   */
  *unfinished(entryOf: (record: ActorRecord) => UnfinishedEntry): Iterable<[string, UnfinishedEntry]> {
    if (this.meta.get('unfinished_index') !== UNFINISHED_INDEX_VERSION) {
      this.store.transactionSync(() => {
        for (const { value } of this.records.getRange()) if (!value.done && value.snapshot !== null) void this.unfinishedIndex.put(value.id, entryOf(value));
        void this.meta.put('unfinished_index', UNFINISHED_INDEX_VERSION);
      });
    }
    for (const { key, value } of this.unfinishedIndex.getRange()) yield [key as string, value];
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
      void this.unfinishedIndex.remove(id);
      this.log.removeInTransaction(id);
      this.steps.removeInTransaction(id);
    });
  }
}

function ownerKey(record: ActorRecord): [string, string, number, string] {
  return [record.machine, record.ownerId, record.createdAt, record.id];
}
