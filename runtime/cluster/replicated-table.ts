import type { Key, RangeOptions, Table } from '../store/store.js';
import { keyString, valuePackr, type Overlaid, type TxContext, type Write } from './log-entry.js';

/** What a replicated table needs of its store: the running transaction, this node's writes in flight, versions, and the way to write. */
export interface TableHost {
  readonly context: TxContext | null;
  pendingWrite(table: string, name: string): Overlaid | undefined;
  versionOf(table: string, key: Key, name: string): string | null;
  write(table: string, key: Key, value: Buffer | null): Promise<boolean>;
}

/** A table of the replicated store: local reads (with this node's writes in flight), writes through the log. */
export class ReplicatedTable<V> implements Table<V> {
  constructor(
    private readonly store: TableHost,
    private readonly name: string,
    private readonly local: Table<V>,
  ) {}

  /**
   * Inside a transaction, what it or this node's writes in flight hold for `key` (as on LMDB, where
   * a transaction sees those queued before it), noting the read; undefined when neither wrote it.
   * Outside one, reads see only what is applied (as on LMDB, where an uncommitted put is unseen).
   */
  private unapplied(key: Key, name: string): Write | undefined {
    const ctx = this.store.context;
    if (!ctx) {
      const pending = this.store.pendingWrite(this.name, name);
      return pending?.visible ? pending.write : undefined;
    }
    const own = ctx.writes.get(this.name)?.get(name);
    if (own) return own;
    const id = `${this.name}\u0000${name}`;
    if (!ctx.reads.has(id)) ctx.reads.set(id, [this.name, key, this.store.versionOf(this.name, key, name)]);
    return this.store.pendingWrite(this.name, name)?.write;
  }

  get(key: Key): V | undefined {
    const name = keyString(key);
    const write = this.unapplied(key, name);
    if (write) return write[2] === null ? undefined : (valuePackr.unpack(write[2]) as V);
    return this.local.get(key);
  }

  doesExist(key: Key): boolean {
    const name = keyString(key);
    const write = this.unapplied(key, name);
    if (write) return write[2] !== null;
    return this.local.doesExist(key);
  }

  put(key: Key, value: V): Promise<boolean> {
    return this.store.write(this.name, key, valuePackr.pack(value));
  }

  putPacked(key: Key, packed: Buffer): Promise<boolean> {
    return this.store.write(this.name, key, packed);
  }

  remove(key: Key): Promise<boolean> {
    return this.store.write(this.name, key, null);
  }

  *getRange(options?: RangeOptions): Iterable<{ key: Key; value: V }> {
    for (const item of this.local.getRange(options)) {
      const name = keyString(item.key);
      const write = this.unapplied(item.key, name);
      if (!write) yield item;
      else if (write[2] !== null) yield { key: item.key, value: valuePackr.unpack(write[2]) as V };
    }
  }

  getKeys(options?: RangeOptions): Iterable<Key> {
    return this.local.getKeys(options);
  }

  getKeysCount(options?: RangeOptions): number {
    return this.local.getKeysCount(options);
  }
}
