import { randomBytes } from 'node:crypto';
import { DeliverPolicy, jetstream, jetstreamManager, JetStreamApiError, StorageType, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { Packr } from 'msgpackr';
import { ApiError } from '../../protocols/errors.js';
import type { Logger } from '../logger.js';
import type { Key, RangeOptions, Store, Table } from '../store/store.js';

// Values travel as msgpack with plain maps (no shared record structures), so every node decodes every entry alone.
const packr = new Packr({ useRecords: false });

/** One write of an entry: table, key, and the packed value (null: the key is removed). */
type Write = [table: string, key: Key, value: Buffer | null];
/** One read an entry depends on: table, key, and the writer it saw (null: never written through the log). */
type Read = [table: string, key: Key, version: string | null];

/** What goes into the log: a transaction's reads (checked at apply) and writes, from one node. */
interface Entry {
  tx: string;
  node: string;
  reads: Read[];
  writes: Write[];
}

/** How an entry ended: applied, aborted (a read changed), or aborted because this node's fence changed. */
type Outcome = 'committed' | 'aborted' | 'fenced';

/** A transaction of this node that is in the log (or on its way) and not applied here yet. */
interface Pending {
  tx: string;
  writes: Map<string, Map<string, Write>>;
  settle: (outcome: Outcome) => void;
  /** Resolves with the outcome once applied here. */
  outcome: Promise<Outcome>;
}

/** A write of this node in flight; `visible` ones (from transactionSync) are seen outside transactions too. */
interface Overlaid {
  tx: string;
  write: Write;
  visible: boolean;
}

/** What one running transaction callback has read and written so far. */
class TxContext {
  readonly reads = new Map<string, Read>();
  readonly writes = new Map<string, Map<string, Write>>();
  constructor(readonly tx: string) {}
}

/** Thrown to writers once this node has been fenced: another node took over its work (a 503 to a client, who retries elsewhere). */
export class FencedError extends ApiError {
  override name = 'FencedError';
  constructor(node: string) {
    super('cluster_unavailable', `Node ${node} was fenced by the cluster (another node took over its work); retry.`, { headers: { 'retry-after': '1' } });
  }
}

/** A transaction that kept losing to concurrent writers on other nodes (a 503: retry). */
export class ConflictError extends ApiError {
  override name = 'ConflictError';
  constructor(attempts: number) {
    super('cluster_unavailable', `The write lost to concurrent writers on other nodes ${attempts} times; retry.`, { headers: { 'retry-after': '1' } });
  }
}

/** Longest key (as JSON) a write may have: LMDB refuses keys near 2,000 bytes, and a log entry every node must apply cannot fail on one. */
const MAX_KEY_CHARS = 1500;

/** Whether every write of `writes` has a key LMDB takes (the same answer on every node). */
function keysFit(writes: readonly Write[]): boolean {
  return writes.every(([table, key]) => table.length + JSON.stringify(key).length <= MAX_KEY_CHARS);
}

/** One key as a string, equal for equal keys (a one-element array is its element). */
function keyString(key: Key): string {
  return JSON.stringify(Array.isArray(key) && key.length === 1 ? key[0] : key);
}

/** The key of `key`'s version in the local versions table. */
function versionKey(table: string, key: Key): (string | number)[] {
  return Array.isArray(key) ? [table, ...(key as (string | number)[])] : [table, key as string | number];
}

/** How long a publish keeps retrying while the stream elects a leader (a NATS server was lost). */
const PUBLISH_RETRY_MS = 30_000;
/** How long the applier may make no progress, with writes waiting on it, before its reader is started again. */
const STALL_MS = 2000;
/** How often a transaction is re-run after losing to a concurrent writer before it gives up. */
const MAX_ATTEMPTS = 32;

async function whileElecting<T>(attempt: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + PUBLISH_RETRY_MS;
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (err instanceof JetStreamApiError || Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
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
  private stopConsumer: (() => void) | null = null;
  /** The last log sequence handed to the applier (applied, or in the batch being applied). */
  private received = 0;
  private readerGeneration = 0;
  private watchdog: NodeJS.Timeout | undefined;
  private closed = false;
  /** The stream-info request in flight, and the one queued behind it (see {@link sync}). */
  private asking: Promise<number> | null = null;
  private nextAsk: Promise<number> | null = null;
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
    private readonly jsm: JetStreamManager,
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

  /** The first sequence the stream `name` still holds, or null when there is no such stream yet. */
  static async firstSeq(nc: NatsConnection, name: string): Promise<number | null> {
    const jsm = await whileElecting(() => jetstreamManager(nc));
    try {
      return (await whileElecting(() => jsm.streams.info(name))).state.first_seq;
    } catch (err) {
      if (err instanceof JetStreamApiError) return null;
      throw err;
    }
  }

  /** Opens the log (creating the stream when missing) over `local` and catches up with it. */
  static async open(nc: NatsConnection, local: Store, options: ReplicatedStoreOptions): Promise<ReplicatedStore> {
    const jsm = await whileElecting(() => jetstreamManager(nc));
    try {
      await whileElecting(() => jsm.streams.info(options.stream));
    } catch (err) {
      if (!(err instanceof JetStreamApiError)) throw err;
      await whileElecting(() =>
        jsm.streams.add({ name: options.stream, subjects: [options.subject], num_replicas: options.replicas, storage: StorageType.File, duplicate_window: 120 * 1e9 }),
      ).catch(async (addErr: unknown) => {
        // Another node created it first.
        if (!(addErr instanceof JetStreamApiError)) throw addErr;
        await jsm.streams.info(options.stream);
      });
    }
    const store = new ReplicatedStore(nc, local, jetstream(nc), jsm, options);
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
   * nodes). Calls made while the stream is being asked wait for, and share, the next request (one
   * sent after they were made), so a flood of unknown tokens costs the NATS servers at most two
   * requests in flight, not one each.
   */
  async sync(): Promise<void> {
    await this.appliedUpTo(await this.lastSeq());
  }

  /** The log's last sequence, from a request sent after this call (callers waiting together share the next one). */
  private lastSeq(): Promise<number> {
    if (!this.asking) {
      this.asking = whileElecting(() => this.jsm.streams.info(this.options.stream))
        .then((info) => info.state.last_seq)
        .finally(() => (this.asking = null));
      return this.asking;
    }
    this.nextAsk ??= this.asking
      .catch(() => undefined)
      .then(() => {
        this.nextAsk = null;
        return this.lastSeq();
      });
    return this.nextAsk;
  }

  /** The log's first and last sequence now (the first moves up when the log is trimmed behind a snapshot). */
  async bounds(): Promise<{ first: number; last: number }> {
    const info = await whileElecting(() => this.jsm.streams.info(this.options.stream));
    return { first: info.state.first_seq, last: info.state.last_seq };
  }

  /** Drops the log's entries below `seq` (every node has applied them and a snapshot holds them). */
  async trimBelow(seq: number): Promise<void> {
    await whileElecting(() => this.jsm.streams.purge(this.options.stream, { seq }));
  }

  /** Resolves once the log has been applied here up to `seq`. */
  appliedUpTo(seq: number): Promise<void> {
    if (this.applied >= seq) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ seq, resolve }));
  }

  /**
   * Reads the log from what was received so far, in order, and applies it in batches. The reader
   * is started again after a reconnect to another NATS server, on a gap, and when it stalls while
   * the log has more (an ordered consumer can go quiet when its server dies).
   */
  private async startApplying(): Promise<void> {
    this.received = this.applied;
    await this.openReader();
    void (async () => {
      for await (const status of this.nc.status()) if (status.type === 'reconnect') this.restartReader('reconnected to NATS');
    })().catch(() => undefined);
    let seenApplied = this.applied;
    let stalledSince = 0;
    this.watchdog = setInterval(() => {
      if (this.applied !== seenApplied || (this.pending.size === 0 && this.waiters.length === 0)) {
        seenApplied = this.applied;
        stalledSince = 0;
        return;
      }
      if (stalledSince === 0) stalledSince = performance.now();
      else if (performance.now() - stalledSince > STALL_MS) {
        stalledSince = 0;
        void this.jsm.streams.info(this.options.stream).then(
          (info) => info.state.last_seq > this.received && this.restartReader('log reader stalled'),
          () => undefined,
        );
      }
    }, STALL_MS / 2);
    this.watchdog.unref();
  }

  private async openReader(): Promise<void> {
    const generation = ++this.readerGeneration;
    const from = this.received + 1;
    const consumer = await whileElecting(() => this.js.consumers.get(this.options.stream, from > 1 ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: from } : {}));
    const messages = await consumer.consume();
    if (generation !== this.readerGeneration) {
      void messages.stop();
      return;
    }
    this.stopConsumer = () => void messages.stop();
    void (async () => {
      for await (const message of messages) {
        if (generation !== this.readerGeneration) break;
        if (message.seq <= this.received) continue;
        if (message.seq !== this.received + 1) {
          this.onGap();
          break;
        }
        this.received = message.seq;
        this.batch.push({ seq: message.seq, entry: packr.unpack(message.data) as Entry });
        if (!this.applierRunning) {
          this.applierRunning = true;
          this.applying = this.applyQueued().catch(() => undefined); // a failure is logged and ends the node (onLost)
        }
      }
    })().catch((err: unknown) => this.restartReader(`log reader failed: ${String(err)}`));
  }

  /** A gap: either the reader skipped (read again), or the log was trimmed past this node (it must restart from a snapshot). */
  private onGap(): void {
    void this.bounds().then(
      ({ first }) => {
        if (first <= this.received + 1) return this.restartReader(`gap in the log after ${this.received}`);
        this.options.logger.error('replicated store: the log was trimmed past this node; it must restart from a snapshot', { applied: this.applied, first });
        this.closed = true;
        this.stopConsumer?.();
        this.onLost?.('behind_trimmed_log');
      },
      () => this.restartReader(`gap in the log after ${this.received}`),
    );
  }

  private restartReader(why: string): void {
    if (this.closed) return;
    this.options.logger.warn('replicated store: restarting the log reader', { why, received: this.received });
    this.stopConsumer?.();
    this.stopConsumer = null;
    this.readerGeneration++;
    void this.openReader().catch((err: unknown) => {
      this.options.logger.error('replicated store: log reader could not restart; retrying', { err });
      setTimeout(() => this.restartReader('retry'), 1000).unref();
    });
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
              if (this.guard && table === this.guard[0] && keyString(key) === keyString(this.guard[1]) && entry.node === this.options.nodeId) failedGuard = true;
            }
          }
          // An entry no node could apply (a key too long for LMDB) is refused everywhere alike.
          if (ok && !keysFit(entry.writes)) ok = false;
          if (ok) {
            for (const [table, key, value] of entry.writes) {
              const target = this.local.table(table);
              if (value === null) void target.remove(key);
              else void target.put(key, packr.unpack(value));
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
      this.stopConsumer?.();
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

  table<V>(name: string): Table<V> {
    let table = this.tables.get(name);
    if (!table) {
      table = new ReplicatedTable<unknown>(this, name, this.local.table(name));
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
    if (ctx.writes.size > 0) void this.submit(ctx, true).catch((err: unknown) => this.options.logger.warn('replicated store: a boot-time write did not land', { err }));
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
    if (!keysFit(writes)) return Promise.reject(new Error(`a key longer than ${MAX_KEY_CHARS} characters cannot be stored`));
    const entry: Entry = { tx: ctx.tx, node: this.options.nodeId, reads, writes };
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
    this.options.logger.error('this node was fenced by the cluster: its writes no longer land', { node: this.options.nodeId });
    this.onLost?.('fenced');
  }

  get flushed(): Promise<unknown> {
    return this.local.flushed;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.watchdog);
    this.stopConsumer?.();
    await this.applying.catch(() => undefined);
    await this.local.close();
  }
}

/** A table of the replicated store: local reads (with this node's writes in flight), writes through the log. */
class ReplicatedTable<V> implements Table<V> {
  constructor(
    private readonly store: ReplicatedStore,
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
    if (write) return write[2] === null ? undefined : (packr.unpack(write[2]) as V);
    return this.local.get(key);
  }

  doesExist(key: Key): boolean {
    const name = keyString(key);
    const write = this.unapplied(key, name);
    if (write) return write[2] !== null;
    return this.local.doesExist(key);
  }

  put(key: Key, value: V): Promise<boolean> {
    return this.store.write(this.name, key, packr.pack(value));
  }

  remove(key: Key): Promise<boolean> {
    return this.store.write(this.name, key, null);
  }

  *getRange(options?: RangeOptions): Iterable<{ key: Key; value: V }> {
    for (const item of this.local.getRange(options)) {
      const name = keyString(item.key);
      const write = this.unapplied(item.key, name);
      if (!write) yield item;
      else if (write[2] !== null) yield { key: item.key, value: packr.unpack(write[2]) as V };
    }
  }

  getKeys(options?: RangeOptions): Iterable<Key> {
    return this.local.getKeys(options);
  }

  getKeysCount(options?: RangeOptions): number {
    return this.local.getKeysCount(options);
  }
}
