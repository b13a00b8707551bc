import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActor, type AnyStateMachine } from 'xstate';
import { ActorHost, type ActorRecord } from '../../runtime/host/actor-host.js';
import type { LogEvent } from '../../runtime/host/actor-log.js';
import { systemClock } from '../../runtime/clock.js';
import { createLogger } from '../../runtime/logger.js';
import type { Store, Table } from '../../runtime/store/store.js';
import { LmdbStore } from '../../runtime/store/lmdb-store.js';
import { BENCH_MACHINE, benchMachine, EVENT_TEXT } from './bench-machine.js';

/** A real LMDB store in a fresh temporary directory, with a host that runs the bench machine. */
export interface BenchHost {
  dir: string;
  store: Store;
  host: ActorHost;
  /** Stops the host, closes the store and deletes the directory. */
  close(): Promise<void>;
}

/** A fresh temporary directory for one figure's store. */
export function benchDir(): string {
  return mkdtempSync(join(tmpdir(), 'svc-bench-host-'));
}

/** Opens a store in `dir` (a fresh one by default) and a host with the bench machine (and `extra`) registered. */
export function openBenchHost(
  options: { dir?: string; extra?: { name: string; logic: AnyStateMachine }[]; history?: boolean } = {},
): BenchHost {
  const dir = options.dir ?? benchDir();
  const store = LmdbStore.open(dir);
  const host = new ActorHost(store, systemClock, createLogger('silent'), { history: options.history });
  host.register({ name: BENCH_MACHINE, logic: benchMachine });
  for (const machine of options.extra ?? []) host.register(machine);
  return {
    dir,
    store,
    host,
    async close() {
      await host.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The storage floor under the host: the same record and event values put into tables of the
 * same key shape, in one LMDB transaction per transition, with no actor, no XState and no
 * follower bookkeeping.
 */
export class StorageFloor {
  private readonly records: Table<ActorRecord>;
  private readonly events: Table<LogEvent>;
  private readonly byOwner: Table<true>;
  private readonly snapshot = createActor(benchMachine, { input: { start: 0 } }).getPersistedSnapshot();
  private readonly nextSeq = new Map<string, number>();

  constructor(private readonly store: Store) {
    this.records = store.table<ActorRecord>('floor_actors');
    this.events = store.table<LogEvent>('floor_events');
    this.byOwner = store.table<true>('floor_by_owner');
  }

  private record(id: string, nextSeq: number, now: number): ActorRecord {
    return {
      id,
      machine: BENCH_MACHINE,
      ownerId: 'bench',
      snapshot: this.snapshot,
      nextSeq,
      done: false,
      createdAt: now,
      updatedAt: now,
    };
  }

  /** What spawning writes: the index entry and the first record. */
  spawn(id: string): Promise<void> {
    const now = Date.now();
    this.nextSeq.set(id, 1);
    return this.store.transaction(() => {
      void this.byOwner.put([BENCH_MACHINE, 'bench', now, id], true);
      void this.records.put(id, this.record(id, 1, now));
    });
  }

  /** What one transition emitting `n` events writes: the record and `n` log entries. */
  transition(id: string, n: number): Promise<void> {
    const now = Date.now();
    const first = this.nextSeq.get(id) ?? 1;
    this.nextSeq.set(id, first + n);
    return this.store.transaction(() => {
      void this.records.put(id, this.record(id, first + n, now));
      for (let i = 0; i < n; i++)
        void this.events.put([id, first + i], {
          seq: first + i,
          type: 'tick',
          ts: now,
          data: { count: first + i, text: EVENT_TEXT },
        });
    });
  }
}
