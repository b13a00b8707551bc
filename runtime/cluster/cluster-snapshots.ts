import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../logger.js';
import type { LmdbStore } from '../store/lmdb-store.js';
import type { Table } from '../store/store.js';
import type { ClusterNode } from './cluster-node.js';
import type { ReplicatedStore } from './replicated-store.js';

/** A snapshot on the shared path: a copy of one node's LMDB holding at least the log up to `seq`. */
export interface SnapshotRecord {
  seq: number;
  dir: string;
  node: string;
  at: number;
}

/** Snapshots kept on disk (older ones are deleted once a newer one is recorded). */
const KEEP = 2;

/** `<seq>-<node>` directory names of finished snapshots in `root`, newest first. */
function snapshotsIn(root: string): { seq: number; dir: string }[] {
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .map((name) => ({ name, seq: Number(/^(\d+)-[A-Za-z0-9_-]+$/.exec(name)?.[1] ?? NaN) }))
    .filter((entry) => Number.isSafeInteger(entry.seq))
    .sort((a, b) => b.seq - a.seq)
    .map((entry) => ({ seq: entry.seq, dir: join(root, entry.name) }));
}

/**
 * Puts the newest snapshot holding at least `seq` in place of the LMDB under `dataDir` (the old one
 * is kept aside). For a node whose applied position fell behind the trimmed log, before its store
 * opens. Returns the snapshot used, or null when none is new enough.
 */
export function restoreSnapshot(dataDir: string, root: string, seq: number): { seq: number; dir: string } | null {
  const snapshot = snapshotsIn(root).find((entry) => entry.seq >= seq);
  if (!snapshot) return null;
  const lmdb = join(dataDir, 'lmdb');
  if (existsSync(lmdb)) renameSync(lmdb, join(dataDir, `lmdb.replaced-${Date.now()}`));
  mkdirSync(lmdb, { recursive: true });
  copyFileSync(join(snapshot.dir, 'data.mdb'), join(lmdb, 'data.mdb'));
  return snapshot;
}

/**
 * Keeps the log bounded. Every `every` applied entries one node (whichever wins a transaction on
 * `cluster_snapshots`) copies its LMDB to the shared snapshot directory, records it, and trims the
 * log below the lowest position any live node has reported (and never past the snapshot). A node
 * that comes back behind the trimmed log, or with an empty disk, starts from the newest snapshot
 * and reads the rest of the log. Each node reports its applied position every quarter period.
 */
export class ClusterSnapshots {
  private readonly records: Table<SnapshotRecord | { seq: number; node: string }>;
  private readonly applied: Table<number>;
  private reported = 0;
  private running = false;
  /** The check (and snapshot) under way, awaited by `stop`. */
  private current: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: ReplicatedStore,
    private readonly local: LmdbStore,
    private readonly node: ClusterNode,
    private readonly options: { root: string; every: number; logger: Logger },
  ) {
    this.records = store.table('cluster_snapshots');
    this.applied = store.table<number>('cluster_applied');
  }

  /** Starts watching the applied position (nothing when `every` is 0). */
  start(): void {
    if (this.options.every <= 0) return;
    this.store.onApplied = (seq) => {
      if (this.running) return;
      this.current = this.onApplied(seq);
    };
  }

  /**
   * Stops watching and waits for a snapshot under way: its LMDB backup copies the environment in a
   * native thread, and closing the store under it ends the process with a signal (the drain's exit
   * code was null once in test/cluster.test.ts). Called before the store closes.
   */
  async stop(): Promise<void> {
    this.store.onApplied = null;
    await this.current;
  }

  /** The newest recorded snapshot. */
  latest(): SnapshotRecord | null {
    return (this.records.get('latest') as SnapshotRecord | undefined) ?? null;
  }

  private async onApplied(seq: number): Promise<void> {
    if (this.running || this.store.isFenced) return;
    this.running = true;
    try {
      const { every } = this.options;
      if (seq - this.reported >= every / 4) {
        this.reported = seq;
        await this.applied.put(this.node.id, seq);
      }
      const target = Math.floor(seq / every) * every;
      if (target === 0 || target <= (this.latest()?.seq ?? 0)) return;
      const won = await this.store.transaction(() => {
        const claim = this.records.get('claim');
        if (claim && claim.seq >= target) return false;
        void this.records.put('claim', { seq: target, node: this.node.id });
        return true;
      });
      if (won) await this.snapshot();
    } catch (err) {
      this.options.logger.warn('cluster snapshot failed', { err });
    } finally {
      this.running = false;
    }
  }

  private async snapshot(): Promise<void> {
    const { root, logger } = this.options;
    const seq = this.store.appliedSeq;
    const name = `${seq}-${this.node.id}`;
    const partial = join(root, `${name}.partial`);
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial, { recursive: true });
    await this.local.backup(partial);
    renameSync(partial, join(root, name));
    const record: SnapshotRecord = { seq, dir: name, node: this.node.id, at: Date.now() };
    await this.store.transaction(() => {
      if ((this.latest()?.seq ?? 0) < seq) void this.records.put('latest', record);
    });
    for (const old of snapshotsIn(root).slice(KEEP)) rmSync(old.dir, { recursive: true, force: true });
    const trimTo = Math.min(seq, this.lowestLiveApplied());
    const { first } = await this.store.stream.bounds();
    if (trimTo + 1 > first) await this.store.stream.trimBelow(trimTo + 1);
    logger.info('cluster snapshot taken', { seq, trimmed_below: Math.max(first, trimTo + 1) });
  }

  /** The lowest applied position reported by a node that is not down (0 when one has not reported). */
  private lowestLiveApplied(): number {
    let lowest = Number.MAX_SAFE_INTEGER;
    for (const { value } of this.node.nodes.getRange()) {
      if (value.state === 'down') continue;
      lowest = Math.min(lowest, this.applied.get(value.id) ?? 0);
    }
    return lowest === Number.MAX_SAFE_INTEGER ? 0 : lowest;
  }
}
