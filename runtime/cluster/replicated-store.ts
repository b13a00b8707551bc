import { randomBytes } from 'node:crypto';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../logger.js';
import type { Key, Store, Table, TableOptions } from '../store/store.js';
import {
  ConflictError,
  FencedError,
  keysFit,
  keyString,
  MAX_KEY_CHARS,
  packr,
  valuePackr,
  TxContext,
  versionKey,
  whileElecting,
  type Entry,
  type Outcome,
  type Overlaid,
  type Write,
} from './log-entry.js';
import { LogReader } from './log-reader.js';
import { LogStream } from './log-stream.js';
import { ReplicatedTable } from './replicated-table.js';

export { FencedError } from './log-entry.js';

/** How often a transaction is re-run after losing to a concurrent writer before it gives up. */
const MAX_ATTEMPTS = 32;

/** A transaction of this node that is in the log (or on its way) and not applied here yet. */
export interface Pending {
  tx: string;
  writes: Map<string, Map<string, Write>>;
  settle: (outcome: Outcome) => void;
  /** Resolves with the outcome once applied here. */
  outcome: Promise<Outcome>;
}

/** How the store finds its log: the stream, its one subject, and how many servers keep a copy. */
export interface ReplicatedStoreOptions {
  nodeId: string;
  stream: string;
  subject: string;
  replicas: number;
  logger: Logger;
}

/**
 * The cluster's store: every write goes through one JetStream stream (replicated to a quorum of
 * NATS servers before it counts), and every node applies that log, in its order, to its own LMDB.
 * Reads are local and synchronous, as on one node.
 *
 * A transaction runs its callback here against the local data (plus this node's own writes still
 * in flight), noting the version of every key it read. The log entry carries those versions; each
 * node applies the entry only if none of them changed (optimistic concurrency, decided by the
 * log's order, so every node decides the same). The writer learns the outcome by applying its own
 * entry, and re-runs the callback after an abort. No clocks and no consensus of our own: ordering
 * is JetStream's. A guard key (the node's fence) joins every transaction's reads, so once another
 * node fences this one, none of its writes can land.
 *
 * Limits: a range read inside a transaction is checked key by key (a key added to the range by
 * another node meanwhile is not a conflict); callbacks must be safe to run more than once.
 */
export class ReplicatedStore implements Store {
  private readonly tables = new Map<string, ReplicatedTable<unknown>>();
  private readonly versions: Table<string>;
  private readonly meta: Table<number>;
  private readonly pending = new Map<string, Pending>();
  /** Writes of this node's pending transactions by table and key: the latest one wins. */
  private readonly overlay = new Map<string, Map<string, Overlaid>>();
  private current: TxContext | null = null;
  private counter = 0;
  private readonly prefix = randomBytes(4).toString('hex');
  /** The fence: a key and the version this node wrote to it; every transaction reads that version. */
  private guard: [string, Key, string | null] | null = null;
  private fenced = false;
  private applied: number;
  private waiters: { seq: number; resolve: () => void }[] = [];
  private reader: LogReader | null = null;
  private closed = false;
  private applying: Promise<void> = Promise.resolve();
  private batch: { seq: number; entry: Entry }[] = [];
  private applierRunning = false;
  /** Called after each applied batch with the last applied sequence (snapshots watch it). */
  onApplied: ((seq: number) => void) | null = null;
  /** Called once this node cannot go on: it was fenced (its own write failed the guard), applying the log failed, or the log was trimmed past it. */
  onLost: ((why: 'fenced' | 'apply_failed' | 'behind_trimmed_log') => void) | null = null;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly local: Store,
    private readonly js: JetStreamClient,
    /** The stream holding the log: its bounds, trimming. */
    readonly stream: LogStream,
    private readonly options: ReplicatedStoreOptions,
  ) {
    this.versions = local.table<string>('_replica_versions');
    this.meta = local.table<number>('_replica_meta');
    this.applied = ReplicatedStore.appliedIn(local);
  }

  /** How far the log was applied to `local` (0 for an empty store): read before opening, to tell whether a snapshot must come first. */
  static appliedIn(local: Store): number {
    return local.table<number>('_replica_meta').get('applied') ?? 0;
  }

  /** Opens the log (creating the stream when missing) over `local` and catches up with it. */
  static async open(nc: NatsConnection, local: Store, options: ReplicatedStoreOptions): Promise<ReplicatedStore> {
    const stream = await LogStream.open(nc, options);
    const store = new ReplicatedStore(nc, local, jetstream(nc), stream, options);
    await store.startApplying();
    await store.sync();
    return store;
  }

  /** The last log sequence applied here. */
  get appliedSeq(): number {
    return this.applied;
  }

  /** Whether this node has been fenced (it can no longer write). */
  get isFenced(): boolean {
    return this.fenced;
  }

  /**
   * Adds `table`/`key` at its version now (this node's own last write to it) to every later
   * transaction's reads: once any other writer changes it, none of this node's writes land.
   */
  guardWith(table: string, key: Key): void {
    this.guard = [table, key, this.versionOf(table, key, keyString(key))];
  }

  /**
   * Resolves once everything in the log when called has been applied here (read-your-writes across
   * nodes; concurrent calls share stream requests, see {@link LogStream.lastSeq}).
   */
  async sync(): Promise<void> {
    await this.appliedUpTo(await this.stream.lastSeq());
  }

  /** Resolves once the log has been applied here up to `seq`. */
  appliedUpTo(seq: number): Promise<void> {
    if (this.applied >= seq) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ seq, resolve }));
  }

  /** Reads the log from what was applied so far, in order, and applies it in batches. */
  private async startApplying(): Promise<void> {
    this.reader = new LogReader(
      this.nc,
      this.js,
      this.stream,
      this.options.logger,
      {
        deliver: (seq, entry) => {
          this.batch.push({ seq, entry });
          if (!this.applierRunning) {
            this.applierRunning = true;
            this.applying = this.applyQueued().catch(() => undefined); // a failure is logged and ends the node (onLost)
          }
        },
        applied: () => this.applied,
        waiting: () => this.pending.size > 0 || this.waiters.length > 0,
        behind: () => {
          this.closed = true;
          this.onLost?.('behind_trimmed_log');
        },
      },
      this.applied,
    );
    await this.reader.start();
  }

  /**
   * Applies what has arrived, one local transaction at a time: everything that queued while the
   * previous commit ran goes into the next one, so commits stay few however fast the log moves.
   */
  private async applyQueued(): Promise<void> {
    try {
      // One turn first, so entries delivered together share a commit.
      await new Promise((resolve) => setImmediate(resolve));
      while (this.batch.length > 0 && !this.closed) {
        const batch = this.batch;
        this.batch = [];
        await this.apply(batch);
      }
    } finally {
      this.applierRunning = false;
    }
  }

  /** Applies a batch of log entries to the local store in one local transaction, then tells their writers. */
  private async apply(batch: { seq: number; entry: Entry }[]): Promise<void> {
    if (batch.length === 0) return;
    const outcomes: [Entry, Outcome][] = [];
    try {
      await this.local.transaction(() => {
        for (const { entry } of batch) {
          let failedGuard = false;
          let ok = true;
          for (const [table, key, version] of entry.reads) {
            if ((this.versions.get(versionKey(table, key)) ?? null) !== version) {
              ok = false;
              if (
                this.guard &&
                table === this.guard[0] &&
                keyString(key) === keyString(this.guard[1]) &&
                entry.node === this.options.nodeId
              )
                failedGuard = true;
            }
          }
          // An entry no node could apply (a key too long for LMDB) is refused everywhere alike.
          if (ok && !keysFit(entry.writes)) ok = false;
          if (ok) {
            for (const [table, key, value] of entry.writes) {
              const target = this.local.table(table);
              if (value === null) void target.remove(key);
              // The value's bytes as they are (the local table's encoding); an older node's plain maps are re-encoded.
              else if (entry.records) void target.putPacked(key, value);
              else void target.put(key, valuePackr.unpack(value));
              void this.versions.put(versionKey(table, key), entry.tx);
            }
          }
          outcomes.push([entry, ok ? 'committed' : failedGuard ? 'fenced' : 'aborted']);
        }
        void this.meta.put('applied', batch[batch.length - 1]!.seq);
      });
    } catch (err) {
      this.options.logger.error('replicated store: applying the log failed; stopping', { err });
      this.closed = true;
      this.reader?.stop();
      this.onLost?.('apply_failed');
      throw err;
    }
    this.applied = batch[batch.length - 1]!.seq;
    for (const [entry, outcome] of outcomes) {
      const pending = this.pending.get(entry.tx);
      if (pending) this.finish(pending, outcome);
    }
    this.onApplied?.(this.applied);
    if (this.waiters.length > 0) {
      const due = this.waiters.filter((waiter) => waiter.seq <= this.applied);
      this.waiters = this.waiters.filter((waiter) => waiter.seq > this.applied);
      for (const waiter of due) waiter.resolve();
    }
  }

  private finish(pending: Pending, outcome: Outcome): void {
    this.pending.delete(pending.tx);
    for (const [table, writes] of pending.writes) {
      const layer = this.overlay.get(table);
      if (!layer) continue;
      for (const name of writes.keys()) if (layer.get(name)?.tx === pending.tx) layer.delete(name);
      if (layer.size === 0) this.overlay.delete(table);
    }
    pending.settle(outcome);
  }

  table<V>(name: string, options?: TableOptions): Table<V> {
    let table = this.tables.get(name);
    if (!table) {
      table = new ReplicatedTable<unknown>(this, name, this.local.table(name, options));
      this.tables.set(name, table);
    }
    return table as Table<V>;
  }

  /** The running transaction's context (null outside one). */
  get context(): TxContext | null {
    return this.current;
  }

  /** A pending write of this node to `table`/`key`, if any. */
  pendingWrite(table: string, name: string): Overlaid | undefined {
    return this.overlay.get(table)?.get(name);
  }

  /** The version a read of `table`/`key` sees now. */
  versionOf(table: string, key: Key, name: string): string | null {
    return this.pendingWrite(table, name)?.tx ?? this.versions.get(versionKey(table, key)) ?? null;
  }

  transaction<T>(action: () => T): Promise<T> {
    return this.run(action);
  }

  /**
   * Runs `action` now against local data and sends its writes without waiting; they read as
   * written here at once (boot-time seeding; a value that loses to another node's concurrent one
   * is replaced when the log says so).
   */
  transactionSync<T>(action: () => T): T {
    const { result, ctx } = this.execute(action);
    if (ctx.writes.size > 0)
      void this.submit(ctx, true).catch((err: unknown) =>
        this.options.logger.warn('replicated store: a boot-time write did not land', { err }),
      );
    return result;
  }

  private execute<T>(action: () => T): { result: T; ctx: TxContext } {
    if (this.current) return { result: action(), ctx: this.current };
    const ctx = new TxContext(`${this.options.nodeId}.${this.prefix}.${(++this.counter).toString(36)}`);
    this.current = ctx;
    try {
      return { result: action(), ctx };
    } finally {
      this.current = null;
    }
  }

  private async run<T>(action: () => T): Promise<T> {
    // A transaction inside a transaction is part of it (as on LMDB).
    if (this.current) return action();
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const { result, ctx } = this.execute(action);
      if (ctx.writes.size === 0) {
        // Read-only: done, unless it read writes of this node still in flight; then it stands only if they land.
        if (await this.readsLanded(ctx)) return result;
        continue;
      }
      if ((await this.submit(ctx)) === 'committed') return result;
      // Lost to another node's write: step aside a little (growing, jittered), so racing nodes take turns.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 * attempt)));
    }
    throw new ConflictError(MAX_ATTEMPTS);
  }

  /** Writes outside a transaction: one entry of their own. */
  write(table: string, key: Key, value: Buffer | null): Promise<boolean> {
    const ctx = this.current;
    if (ctx) {
      let writes = ctx.writes.get(table);
      if (!writes) ctx.writes.set(table, (writes = new Map<string, Write>()));
      writes.set(keyString(key), [table, key, value]);
      return Promise.resolve(true);
    }
    return this.run(() => {
      this.current!.writes.set(table, new Map([[keyString(key), [table, key, value]]]));
      return true;
    });
  }

  /** Whether every in-flight write `ctx` read has committed (waits for them). */
  private async readsLanded(ctx: TxContext): Promise<boolean> {
    for (const [, , version] of ctx.reads.values()) {
      const pending = version === null ? undefined : this.pending.get(version);
      if (pending && (await pending.outcome) !== 'committed') return false;
    }
    return true;
  }

  /** Sends a transaction's entry to the log; resolves with its outcome once applied here. */
  private submit(ctx: TxContext, visible = false): Promise<Outcome> {
    if (this.fenced) return Promise.reject(new FencedError(this.options.nodeId));
    const reads = [...ctx.reads.values()];
    if (this.guard) {
      const [table, key, version] = this.guard;
      if (this.versionOf(table, key, keyString(key)) !== version) {
        // The fence moved here already: nothing this node writes could land.
        this.fence();
        return Promise.reject(new FencedError(this.options.nodeId));
      }
      reads.push([table, key, version]);
    }
    const writes: Write[] = [];
    for (const byKey of ctx.writes.values()) for (const write of byKey.values()) writes.push(write);
    if (!keysFit(writes))
      return Promise.reject(new Error(`a key longer than ${MAX_KEY_CHARS} characters cannot be stored`));
    const entry: Entry = { tx: ctx.tx, node: this.options.nodeId, reads, writes, records: true };
    let settle: (outcome: Outcome) => void = () => {};
    const outcome = new Promise<Outcome>((resolve) => (settle = resolve));
    this.pending.set(ctx.tx, { tx: ctx.tx, writes: ctx.writes, settle, outcome });
    for (const [table, byKey] of ctx.writes) {
      let layer = this.overlay.get(table);
      if (!layer) this.overlay.set(table, (layer = new Map<string, Overlaid>()));
      for (const [name, write] of byKey) layer.set(name, { tx: ctx.tx, write, visible });
    }
    const published = whileElecting(() => this.js.publish(this.options.subject, packr.pack(entry), { msgID: ctx.tx }));
    return published.then(
      () =>
        outcome.then((result) => {
          if (result === 'fenced') this.fence();
          if (this.fenced) throw new FencedError(this.options.nodeId);
          return result;
        }),
      (err: unknown) => {
        // Not known to be in the log: the writer gets the error; if it did land, every node applies it all the same.
        const pending = this.pending.get(ctx.tx);
        if (pending) this.finish(pending, 'aborted');
        throw err;
      },
    );
  }

  private fence(): void {
    if (this.fenced) return;
    this.fenced = true;
    this.options.logger.error('this node was fenced by the cluster: its writes no longer land', {
      node: this.options.nodeId,
    });
    this.onLost?.('fenced');
  }

  refreshReads(): void {
    this.local.refreshReads();
  }

  get flushed(): Promise<unknown> {
    return this.local.flushed;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.reader?.stop();
    await this.applying.catch(() => undefined);
    await this.local.close();
  }
}
