import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database, type Key as LmdbKey, type RootDatabase } from 'lmdb';
import { DecodedValues } from './decoded-values.js';
import { releaseMappedPages } from './mapped-pages.js';
import type { Held, Key, RangeOptions, Store, Table, TableOptions } from './store.js';

/**
 * One write of a transaction, as it can be undone: the raw bytes the key held before, or the value
 * the writer said it held (undefined: absent).
 */
interface UndoStep {
  table: LmdbTable<unknown>;
  key: LmdbKey;
  before: Buffer | Held<unknown> | undefined;
}

/**
 * A table on LMDB. Inside a transaction every write first notes what the key held (raw bytes,
 * no decoding), so a callback that throws can be rolled back in the same write transaction.
 */
class LmdbTable<V> implements Table<V> {
  constructor(
    private readonly db: Database<V, LmdbKey>,
    private readonly raw: Database<Buffer, LmdbKey>,
    private readonly journal: () => UndoStep[] | null,
    private readonly decoded: DecodedValues<V> | null,
  ) {}

  get(key: Key): V | undefined {
    if (!this.decoded || typeof key !== 'string') return this.db.get(key as LmdbKey);
    const bytes = this.raw.getBinary(key);
    return bytes === undefined ? undefined : this.decoded.decode(key, bytes);
  }

  doesExist(key: Key): boolean {
    return this.db.doesExist(key as LmdbKey);
  }

  put(key: Key, value: V, held?: Held<V>): Promise<boolean> {
    this.note(key, held);
    if (this.decoded && typeof key === 'string') return this.raw.put(key, this.decoded.pack(key, value));
    return this.db.put(key as LmdbKey, value);
  }

  putPacked(key: Key, packed: Buffer): Promise<boolean> {
    this.note(key);
    return this.raw.put(key as LmdbKey, packed);
  }

  remove(key: Key): Promise<boolean> {
    this.note(key);
    return this.db.remove(key as LmdbKey);
  }

  private note(key: Key, held?: Held<V>): void {
    const steps = this.journal();
    if (steps)
      steps.push({
        table: this,
        key: key as LmdbKey,
        before: held ?? this.raw.getBinary(key as LmdbKey),
      });
  }

  /** Puts back what `step` noted, without journaling (the rollback of a throwing callback). */
  restore(step: UndoStep): void {
    const before = step.before;
    if (before instanceof Uint8Array) void this.raw.put(step.key, before);
    else if (before?.value !== undefined) void this.db.put(step.key, before.value as V);
    else void this.raw.remove(step.key);
  }

  getRange(options?: RangeOptions): Iterable<{ key: Key; value: V }> {
    return this.db.getRange(options as Parameters<Database<V, LmdbKey>['getRange']>[0]) as Iterable<{
      key: Key;
      value: V;
    }>;
  }

  getKeys(options?: RangeOptions): Iterable<Key> {
    return this.db.getKeys(options as Parameters<Database<V, LmdbKey>['getKeys']>[0]) as Iterable<Key>;
  }

  getKeysCount(options?: RangeOptions): number {
    return this.db.getKeysCount(options as Parameters<Database<V, LmdbKey>['getKeysCount']>[0]);
  }
}

/**
 * The store on LMDB: one environment under `<dataDir>/lmdb`, tables as named databases with
 * msgpackr values and ordered-binary keys. Async transactions from concurrent requests are
 * batched into one commit.
 *
 * lmdb-js's asynchronous `transaction()` commits whatever a callback wrote before it threw. Child
 * transactions would undo it but cost about 40 % of write throughput, so each transaction keeps an
 * undo journal of raw previous values instead and restores them when its callback throws.
 */
export class LmdbStore implements Store {
  private readonly tables = new Map<string, LmdbTable<unknown>>();
  private undo: UndoStep[] | null = null;
  /** Backups under way: LMDB copies the environment in a native thread, and closing it under one is a segfault. */
  private readonly backups = new Set<Promise<void>>();
  /** The timer that releases the map's resident pages (`releasePagesEveryMs`). */
  private pager: NodeJS.Timeout | null = null;

  private constructor(private readonly root: RootDatabase) {}

  /**
   * Opens (or creates) the store in `dataDir`. A second process may open the same directory.
   * `sync: false` commits without flushing to disk: a process kill loses nothing, a machine crash
   * may lose the last commits but never the store's consistency. Only for a store that is a copy
   * of something durable elsewhere (a cluster node's LMDB, rebuilt from the replicated log).
   * `releasePagesEveryMs` (0: never): how often the pages of LMDB's map this process has read are
   * released from its RSS (they stay in the page cache; see mapped-pages.ts).
   */
  static open(dataDir: string, options: { sync?: boolean; releasePagesEveryMs?: number } = {}): LmdbStore {
    const path = join(dataDir, 'lmdb');
    mkdirSync(path, { recursive: true });
    const root = open({
      path,
      maxDbs: 64,
      compression: false,
      encoding: 'msgpack',
      mapSize: 64 * 1024 ** 3,
      noSync: options.sync === false,
    });
    const store = new LmdbStore(root);
    const every = options.releasePagesEveryMs ?? 0;
    if (every > 0) {
      const file = join(path, 'data.mdb');
      store.pager = setInterval(() => releaseMappedPages(file), every);
      store.pager.unref();
    }
    return store;
  }

  table<V>(name: string, options: TableOptions = {}): Table<V> {
    let table = this.tables.get(name);
    if (!table) {
      // Both views of a table must agree on compression, or one would read the other's bytes raw.
      const { compressed } = options;
      // lmdb's own dictionary either way: a threshold changes which values are compressed, not how.
      const compression = typeof compressed === 'object' ? { threshold: compressed.over } : compressed === true;
      const db = this.root.openDB<unknown, LmdbKey>({ name, encoding: 'msgpack', cache: false, compression });
      const raw = this.root.openDB<Buffer, LmdbKey>({ name, encoding: 'binary', cache: false, compression });
      const decoded = options.sharedReads ? new DecodedValues<unknown>(options.sharedReads.maxKeys) : null;
      table = new LmdbTable(db, raw, () => this.undo, decoded);
      this.tables.set(name, table);
    }
    return table as Table<V>;
  }

  /** Runs `action` with an undo journal; on a throw, restores what it wrote, then rethrows. */
  private journaled<T>(action: () => T): T {
    if (this.undo) return action(); // nested: part of the outer transaction's journal
    const steps: UndoStep[] = [];
    this.undo = steps;
    try {
      return action();
    } catch (err) {
      for (const step of steps.reverse()) step.table.restore(step);
      throw err;
    } finally {
      this.undo = null;
    }
  }

  transaction<T>(action: () => T): Promise<T> {
    return this.root.transaction(() => this.journaled(action));
  }

  transactionSync<T>(action: () => T): T {
    // transactionSync aborts on a throw by itself; the journal is only for async transactions.
    return this.root.transactionSync(action);
  }

  refreshReads(): void {
    // Ends the shared read snapshot; the next read renews it (lazily, inside that native call).
    this.root.resetReadTxn();
  }

  get flushed(): Promise<unknown> {
    return this.root.flushed;
  }

  /** Writes a consistent copy of the whole environment to the file `path` (compacted): a cluster node's snapshot. */
  backup(path: string): Promise<void> {
    const copying = this.root.backup(path, true);
    const tracked = copying.then(
      () => undefined,
      () => undefined,
    );
    this.backups.add(tracked);
    void tracked.finally(() => this.backups.delete(tracked));
    return copying;
  }

  /** Closes the environment once the backups under way have finished and the writes are committed. */
  async close(): Promise<void> {
    // Before the environment unmaps: an address advised after munmap could belong to something else.
    if (this.pager) clearInterval(this.pager);
    this.pager = null;
    await Promise.all(this.backups);
    await this.root.committed;
    await this.root.close();
  }
}
