/** A key: a string, a number, or an array of them (compared element by element; a one-element array is the same key as its element). */
export type Key = string | number | readonly (string | number)[];

/** A key range: `start` inclusive, `end` exclusive; with `reverse`, `start` is the high end. */
export interface RangeOptions {
  start?: Key;
  end?: Key;
  reverse?: boolean;
  limit?: number;
}

/** What a key held when a transaction read it (`value` undefined: absent). */
export interface Held<V> {
  value: V | undefined;
}

/**
 * A named table of one store. Reads are synchronous and see what is committed (and, inside a
 * transaction, that transaction's own writes); writes resolve once committed.
 */
export interface Table<V> {
  get(key: Key): V | undefined;
  doesExist(key: Key): boolean;
  /**
   * Writes `value` (a fresh copy is stored: later changes to the object are not). Inside a
   * transaction, `held` may say what the key holds now, as read in that same transaction (undefined
   * value: absent) or absent by construction (a key made for this write: the next seq of a ledger,
   * a new random id), so undoing the write needs no second read of the key; never a guess.
   */
  put(key: Key, value: V, held?: Held<V>): Promise<boolean>;
  /**
   * Writes a value given as msgpack the way an LMDB table stores it (msgpackr's records, defined
   * inside the value: `tablePackr` of table-packr.ts), stored as is: `get` then decodes what
   * was packed. A replica applying a log entry writes its bytes without decoding and encoding again.
   */
  putPacked(key: Key, packed: Buffer): Promise<boolean>;
  /** Deletes `key` (a missing key is no error); resolves once committed. */
  remove(key: Key): Promise<boolean>;
  /** Entries in key order (or reversed) within the range. */
  getRange(options?: RangeOptions): Iterable<{ key: Key; value: V }>;
  getKeys(options?: RangeOptions): Iterable<Key>;
  getKeysCount(options?: RangeOptions): number;
}

/** How a table is opened. */
export interface TableOptions {
  /**
   * Reads return values decoded once per stored bytes and shared between readers, frozen (never
   * change one; write a copy). Each read still fetches the key's bytes, so it sees every write at
   * once; it skips decoding when they are bytes read or written before (string keys, at most
   * `maxKeys` of them kept). For a small record read on every request.
   */
  sharedReads?: { maxKeys: number };
  /**
   * Values over 1 KB (or `over` bytes) are stored LZ4-compressed; values written before compression
   * was on, or under the threshold, still read. For large records read rarely: fewer pages per
   * commit and a smaller file. A write outside a transaction is compressed by LMDB's writer thread;
   * inside one, on the event loop (about 20 µs for 1.3 KB, measured: the dictionary is loaded per
   * value), so a table written in hot transactions sets its threshold above its usual record.
   */
  compressed?: boolean | { over: number };
}

/**
 * The embedded store port: named tables, atomic transactions (a callback runs alone, so
 * read-check-write inside it is atomic) and a durability barrier. `LmdbStore` is the real one,
 * `MemoryStore` the one tests and benchmarks can run on.
 */
export interface Store {
  table<V>(name: string, options?: TableOptions): Table<V>;
  /** Runs `action` atomically; resolves after commit (visible, survives a process kill). */
  transaction<T>(action: () => T): Promise<T>;
  /** Like {@link transaction} but blocks until committed (CLI, boot-time repairs). */
  transactionSync<T>(action: () => T): T;
  /**
   * Makes the next reads see every commit made before this call, by this or any other process
   * (LMDB otherwise keeps reading one snapshot until the next timer tick). Cheap: call it where a
   * read must not miss a write another process just acknowledged (the perimeter's generation check).
   */
  refreshReads(): void;
  /** Resolves when every write so far is on disk. */
  readonly flushed: Promise<unknown>;
  /** Closes the store after pending writes commit. */
  close(): Promise<void>;
}
