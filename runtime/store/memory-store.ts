import { pack, unpack } from 'msgpackr';
import type { Key, RangeOptions, Store, Table } from './store.js';

/** Orders keys as LMDB's ordered-binary does for the keys we use: numbers before strings, arrays element by element. */
export function compareKeys(a: Key, b: Key): number {
  const left = Array.isArray(a) ? a : [a];
  const right = Array.isArray(b) ? b : [b];
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const x = left[i] as string | number;
    const y = right[i] as string | number;
    if (typeof x !== typeof y) return typeof x === 'number' ? -1 : 1;
    if (x < y) return -1;
    if (x > y) return 1;
  }
  return left.length - right.length;
}

interface Entry {
  key: Key;
  bytes: Buffer;
}

/** An undo step of a transaction: the entry a key had before (undefined when it had none). */
type Undo = () => void;

/** A table kept as a sorted array of msgpack-encoded values (copies in, copies out, like LMDB). */
class MemoryTable<V> implements Table<V> {
  private readonly entries: Entry[] = [];

  constructor(private readonly journal: () => Undo[] | null) {}

  /** The index of `key`, or where it would go (as a negative: −(index + 1)). */
  private find(key: Key): number {
    let low = 0;
    let high = this.entries.length - 1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      const order = compareKeys(this.entries[mid]!.key, key);
      if (order === 0) return mid;
      if (order < 0) low = mid + 1;
      else high = mid - 1;
    }
    return -(low + 1);
  }

  get(key: Key): V | undefined {
    const at = this.find(key);
    return at >= 0 ? (unpack(this.entries[at]!.bytes) as V) : undefined;
  }

  doesExist(key: Key): boolean {
    return this.find(key) >= 0;
  }

  put(key: Key, value: V): Promise<boolean> {
    return this.putPacked(key, pack(value));
  }

  putPacked(key: Key, bytes: Buffer): Promise<boolean> {
    const copy: Key = Array.isArray(key) ? [...(key as readonly (string | number)[])] : key;
    const at = this.find(key);
    if (at >= 0) {
      const before = this.entries[at]!;
      this.entries[at] = { key: copy, bytes };
      this.journal()?.push(() => void this.restore(before));
    } else {
      this.entries.splice(-(at + 1), 0, { key: copy, bytes });
      this.journal()?.push(() => void this.drop(copy));
    }
    return Promise.resolve(true);
  }

  remove(key: Key): Promise<boolean> {
    const at = this.find(key);
    if (at < 0) return Promise.resolve(false);
    const [before] = this.entries.splice(at, 1);
    this.journal()?.push(() => void this.restore(before!));
    return Promise.resolve(true);
  }

  private restore(entry: Entry): void {
    const at = this.find(entry.key);
    if (at >= 0) this.entries[at] = entry;
    else this.entries.splice(-(at + 1), 0, entry);
  }

  private drop(key: Key): void {
    const at = this.find(key);
    if (at >= 0) this.entries.splice(at, 1);
  }

  /** Indexes of the range, in iteration order. */
  private *span(options: RangeOptions = {}): Generator<number> {
    const { start, end, reverse = false, limit = Number.POSITIVE_INFINITY } = options;
    let count = 0;
    if (!reverse) {
      let at = start === undefined ? 0 : this.find(start);
      if (at < 0) at = -(at + 1);
      for (; at < this.entries.length && count < limit; at++, count++) {
        if (end !== undefined && compareKeys(this.entries[at]!.key, end) >= 0) return;
        yield at;
      }
      return;
    }
    let at = start === undefined ? this.entries.length - 1 : this.find(start);
    if (at < 0) at = -(at + 1) - 1;
    for (; at >= 0 && count < limit; at--, count++) {
      if (end !== undefined && compareKeys(this.entries[at]!.key, end) <= 0) return;
      yield at;
    }
  }

  *getRange(options?: RangeOptions): Iterable<{ key: Key; value: V }> {
    // Collected first: a caller may write to the table while it iterates.
    const picked = [...this.span(options)].map((at) => this.entries[at]!);
    for (const entry of picked) yield { key: entry.key, value: unpack(entry.bytes) as V };
  }

  *getKeys(options?: RangeOptions): Iterable<Key> {
    const picked = [...this.span(options)].map((at) => this.entries[at]!.key);
    yield* picked;
  }

  getKeysCount(options?: RangeOptions): number {
    return [...this.span(options)].length;
  }
}

/**
 * The store in memory, for tests and benchmarks that need no disk: the same tables, the same
 * msgpack copies, transactions that roll back when their callback throws. Nothing survives the
 * process.
 */
export class MemoryStore implements Store {
  private readonly tables = new Map<string, MemoryTable<unknown>>();
  private undo: Undo[] | null = null;
  private closed = false;

  table<V>(name: string): Table<V> {
    let table = this.tables.get(name);
    if (!table) this.tables.set(name, (table = new MemoryTable(() => this.undo)));
    return table as Table<V>;
  }

  transactionSync<T>(action: () => T): T {
    if (this.closed) throw new Error('the store is closed');
    if (this.undo) return action(); // nested: part of the outer transaction
    this.undo = [];
    try {
      const result = action();
      this.undo = null;
      return result;
    } catch (err) {
      const steps = this.undo;
      this.undo = null;
      for (const step of steps!.reverse()) step();
      throw err;
    }
  }

  transaction<T>(action: () => T): Promise<T> {
    try {
      return Promise.resolve(this.transactionSync(action));
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  refreshReads(): void {
    // Reads always see the latest commit: nothing to renew.
  }

  get flushed(): Promise<unknown> {
    return Promise.resolve(true);
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}
