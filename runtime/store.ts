import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database, type RootDatabase, type Key } from 'lmdb';

/** A named table inside the store; values are msgpackr-encoded, keys ordered-binary (strings or arrays). */
export type Table<V> = Database<V, Key>;

/**
 * The one embedded store: an LMDB environment under `<dataDir>/lmdb`, with named tables.
 * Async transactions from concurrent requests are batched into one commit; a transaction's
 * callback runs alone, so read-check-write inside it is atomic.
 */
export class Store {
  private readonly tables = new Map<string, Table<unknown>>();

  private constructor(readonly root: RootDatabase) {}

  /** Opens (or creates) the store in `dataDir`. A second process may open the same directory. */
  static open(dataDir: string): Store {
    const path = join(dataDir, 'lmdb');
    mkdirSync(path, { recursive: true });
    const root = open({ path, maxDbs: 64, compression: false, encoding: 'msgpack', mapSize: 64 * 1024 ** 3 });
    return new Store(root);
  }

  /** The table `name`, opened on first use. */
  table<V>(name: string): Table<V> {
    let table = this.tables.get(name);
    if (!table) {
      table = this.root.openDB<unknown, Key>({ name, encoding: 'msgpack', cache: false });
      this.tables.set(name, table);
    }
    return table as Table<V>;
  }

  /** Runs `action` atomically in a write transaction; resolves after commit (visible, survives a process kill). */
  transaction<T>(action: () => T): Promise<T> {
    return this.root.transaction(action);
  }

  /** Like {@link transaction} but blocks until committed; for the admin CLI and boot-time repairs. */
  transactionSync<T>(action: () => T): T {
    return this.root.transactionSync(action);
  }

  /** Resolves when every write so far is on disk. */
  get flushed(): Promise<boolean> {
    return this.root.flushed;
  }

  /** Closes the environment after pending writes commit. */
  async close(): Promise<void> {
    await this.root.committed;
    await this.root.close();
  }
}
