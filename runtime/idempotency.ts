import type { Store, Table } from './store/store.js';

/** What a key was first used for: the resource it created and the request it came with. */
interface KeyRecord {
  /** The resource id; `sessionId` in records written before keys were shared by features. */
  id?: string;
  sessionId?: string;
  bodyHash: string;
}

/** The outcome of {@link IdempotencyKeys.run}: the value and whether it was replayed. */
export interface IdempotentResult<T> {
  value: T;
  replayed: boolean;
}

/** Thrown when a key is reused with a different request body. */
export class IdempotencyMismatch extends Error {
  override name = 'IdempotencyMismatch';
}

/** How one keyed creation is carried out and replayed. */
export interface IdempotentWork<T> {
  /** The value for an existing resource, or undefined when it does not exist (crashed before it was made). */
  replay(id: string): T | undefined;
  /** A fresh id for a new resource. */
  newId(): string;
  /** Creates the resource `id`. */
  create(id: string): Promise<T>;
}

/**
 * `Idempotency-Key` handling shared by every creating route (chat sessions, video jobs). A key is
 * reserved synchronously before any work, so concurrent requests with one key make one resource:
 * the first creates it, the others wait and replay it. The reservation is stored (key → resource
 * id and body hash) before the work starts, so a reuse with another body is refused even after a
 * restart; a reservation whose resource never came to exist is free again.
 */
export class IdempotencyKeys {
  private readonly records: Table<KeyRecord>;
  private readonly inflight = new Map<string, { bodyHash: string; settled: Promise<void> }>();

  constructor(store: Store, tableName: string) {
    this.records = store.table<KeyRecord>(tableName);
  }

  /** Runs `work` once per `key` (scoped by its first element, the account); throws {@link IdempotencyMismatch}. */
  async run<T>(key: [string, string], bodyHash: string, work: IdempotentWork<T>): Promise<IdempotentResult<T>> {
    const name = `${key[0]}\u0000${key[1]}`;
    for (;;) {
      const running = this.inflight.get(name);
      if (running) {
        if (running.bodyHash !== bodyHash) throw new IdempotencyMismatch('key in use with another body');
        await running.settled;
        continue;
      }
      const seen = this.records.get(key);
      if (seen) {
        if (seen.bodyHash !== bodyHash) throw new IdempotencyMismatch('key used with another body');
        const value = work.replay(seen.id ?? seen.sessionId ?? '');
        if (value !== undefined) return { value, replayed: true };
      }
      return this.claim(name, key, bodyHash, work);
    }
  }

  private async claim<T>(
    name: string,
    key: [string, string],
    bodyHash: string,
    work: IdempotentWork<T>,
  ): Promise<IdempotentResult<T>> {
    let settle!: () => void;
    this.inflight.set(name, { bodyHash, settled: new Promise<void>((resolve) => (settle = resolve)) });
    const id = work.newId();
    try {
      await this.records.put(key, { id, bodyHash });
      return { value: await work.create(id), replayed: false };
    } catch (err) {
      // Nothing was made: free the key so a retry can make it.
      if (work.replay(id) === undefined) await this.records.remove(key).catch(() => false);
      throw err;
    } finally {
      this.inflight.delete(name);
      settle();
    }
  }
}
