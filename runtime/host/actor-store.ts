import type { Store, Table } from '../store/store.js';
import { ActorLog, type LogEvent } from './actor-log.js';
import { ActorSteps } from './actor-steps.js';
import type { StoredStep } from './step-delta.js';

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
  /** Tracing on: the request span that spawned the actor (`traceId-spanId-flags`), which its step spans link to. */
  startedBy?: string;
}

/**
 * How an unfinished actor comes back after a restart, kept small so a boot reads it without
 * decoding snapshots: its machine, whether it is parked (it only waits for an event or a deadline,
 * so it stays in the store until one comes) and its deadlines.
 */
export interface UnfinishedEntry {
  machine: string;
  /** The owner, so placement and counts need no snapshot decoded. */
  ownerId: string;
  parked: boolean;
  deadlines: Record<string, number | null | undefined>;
}

/** What one commit writes: the record, the events since the last commit, a step, an index change (see `commit`). */
export interface CommitContent {
  record: ActorRecord;
  events: readonly LogEvent[];
  /** As the step history stores it (step-delta.ts). */
  step?: StoredStep;
  unfinished?: UnfinishedEntry | null;
}

/** The version of the unfinished index this code writes; a store without it builds it once. */
const UNFINISHED_INDEX_VERSION = 2;
/** The version of the ended index (actors by when they ended, for retention); a store without it builds it once. */
const ENDED_INDEX_VERSION = 1;

/** Key of the ended index: when the actor ended, then its id. */
type EndedKey = [number, string];

/**
 * Where actors persist: their records (snapshot and log position), their event logs, an index by
 * owner and an index of unfinished actors, in the store. A transition's record, events and index
 * change commit in one transaction.
 */
export class ActorStore {
  private readonly records: Table<ActorRecord>;
  private readonly byOwner: Table<true>;
  private readonly unfinishedIndex: Table<UnfinishedEntry>;
  private readonly endedIndex: Table<true>;
  private readonly meta: Table<number>;
  readonly log: ActorLog;
  readonly steps: ActorSteps;

  constructor(private readonly store: Store) {
    this.records = store.table<ActorRecord>('actors');
    this.byOwner = store.table<true>('actors_by_owner');
    this.unfinishedIndex = store.table<UnfinishedEntry>('actors_unfinished');
    this.endedIndex = store.table<true>('actors_ended');
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
   * changed) its unfinished-index entry, null once it is done (the actor then enters the ended
   * index, for retention), atomically.
   */
  commit(
    record: ActorRecord,
    events: readonly LogEvent[],
    step?: StoredStep,
    unfinished?: UnfinishedEntry | null,
  ): Promise<void> {
    return this.store.transaction(() => this.write({ record, events, step, unfinished }));
  }

  /**
   * As `commit`, with what to write asked of `content` when the store starts the write (null:
   * nothing), so the transitions an actor makes while its commit waits for the store go in with it.
   * `content` may be called more than once (a replicated store re-runs an aborted transaction) and
   * must then return the same.
   */
  commitLatest(content: () => CommitContent | null): Promise<void> {
    return this.store.transaction(() => {
      const latest = content();
      if (latest) this.write(latest);
    });
  }

  private write({ record, events, step, unfinished }: CommitContent): void {
    void this.records.put(record.id, record);
    this.log.appendInTransaction(record.id, events);
    if (step) this.steps.appendInTransaction(record.id, step);
    if (unfinished === null) {
      void this.unfinishedIndex.remove(record.id);
      void this.endedIndex.put(endedKey(record), true);
    } else if (unfinished) void this.unfinishedIndex.put(record.id, unfinished);
  }

  /** The stored record of `id`. */
  get(id: string): ActorRecord | undefined {
    return this.records.get(id);
  }

  /** The unfinished-index entry of `id` (undefined once it is done, or when it never committed). */
  unfinishedEntry(id: string): UnfinishedEntry | undefined {
    return this.unfinishedIndex.get(id);
  }

  /** Ids of one machine's actors owned by `ownerId`, newest first. */
  *idsOwned(machine: string, ownerId: string): Iterable<string> {
    const range = this.byOwner.getRange({
      start: [machine, ownerId, Number.MAX_SAFE_INTEGER],
      end: [machine, ownerId, 0],
      reverse: true,
    });
    for (const { key } of range) yield (key as [string, string, number, string])[3];
  }

  /**
   * Every unfinished actor by its index entry, for a boot. A store written before the index
   * existed gets it built first, from one scan of the records, with `entryOf` (once).
   */
  *unfinished(entryOf: (record: ActorRecord) => UnfinishedEntry): Iterable<[string, UnfinishedEntry]> {
    this.buildIndexes(entryOf);
    yield* this.unfinishedEntries();
  }

  /** Every entry of the unfinished index as it stands. */
  *unfinishedEntries(): Iterable<[string, UnfinishedEntry]> {
    for (const { key, value } of this.unfinishedIndex.getRange()) yield [key as string, value];
  }

  /**
   * Builds, once, what a store written by an older version lacks: the unfinished index (rebuilt
   * when its entry shape changed) and the ended index, from one scan of the records.
   */
  private buildIndexes(entryOf: (record: ActorRecord) => UnfinishedEntry): void {
    const unfinished = this.meta.get('unfinished_index') !== UNFINISHED_INDEX_VERSION;
    const ended = this.meta.get('ended_index') !== ENDED_INDEX_VERSION;
    if (!unfinished && !ended) return;
    this.store.transactionSync(() => {
      for (const { value } of this.records.getRange()) {
        if (value.snapshot === null) continue;
        if (value.done && ended) void this.endedIndex.put(endedKey(value), true);
        if (!value.done && unfinished) void this.unfinishedIndex.put(value.id, entryOf(value));
      }
      void this.meta.put('unfinished_index', UNFINISHED_INDEX_VERSION);
      void this.meta.put('ended_index', ENDED_INDEX_VERSION);
    });
  }

  /**
   * Drops the history of at most `limit` actors that ended before `before`, oldest first, in one
   * transaction: their event logs and step histories, and with `forget(record)` their records
   * too. Returns how many were expired.
   */
  expireEnded(before: number, limit: number, forget: (record: ActorRecord) => boolean): Promise<number> {
    return this.store.transaction(() => {
      let count = 0;
      for (const key of this.endedIndex.getKeys({ start: [0, ''], end: [before, ''], limit })) {
        const id = (key as EndedKey)[1];
        this.log.removeInTransaction(id);
        this.steps.removeInTransaction(id);
        const record = this.records.get(id);
        if (record && forget(record)) {
          void this.byOwner.remove(ownerKey(record));
          void this.records.remove(id);
        }
        void this.endedIndex.remove(key);
        count++;
      }
      return count;
    });
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
      if (record?.done) void this.endedIndex.remove(endedKey(record));
      void this.records.remove(id);
      void this.unfinishedIndex.remove(id);
      this.log.removeInTransaction(id);
      this.steps.removeInTransaction(id);
    });
  }
}

function endedKey(record: ActorRecord): EndedKey {
  return [record.updatedAt, record.id];
}

function ownerKey(record: ActorRecord): [string, string, number, string] {
  return [record.machine, record.ownerId, record.createdAt, record.id];
}
