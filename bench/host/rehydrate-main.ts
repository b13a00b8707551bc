// Child-process entry of the rehydration figure, so memory is measured in a process that did
// nothing else: `node --expose-gc --import tsx bench/host/rehydrate-main.ts` with BENCH_REHYDRATE
// = {"dir": "...", "mode": "host" | "actors" | "scan"}. Prints one line: `rehydrate-result <json>`.
import { createActor, type AnyStateMachine, type Snapshot } from 'xstate';
import { ActorHost, type ActorRecord } from '../../runtime/host/actor-host.js';
import { systemClock } from '../../runtime/clock.js';
import { createLogger } from '../../runtime/logger.js';
import { LmdbStore } from '../../runtime/store/lmdb-store.js';
import { parkedSessionMachine } from './parked-sessions.js';

/** What the host's rehydration did (mode host), or a baseline doing part of its work. */
export interface RehydrateRun {
  mode: 'host' | 'actors' | 'scan';
  actors: number;
  /** rehydrate() (or the baseline's loop) until it returned. */
  ms: number;
  /** Until the writes rehydrate started had committed and their callbacks ran (host only). */
  settledMs: number | null;
  /** Records whose updatedAt moved during rehydration: rewritten although nothing changed (host only). */
  recordsRewritten: number | null;
  heapBeforeMb: number;
  heapAfterMb: number;
  rssBeforeMb: number;
  rssAfterMb: number;
}

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const mb = (bytes: number) => Math.round((bytes / 1024 ** 2) * 10) / 10;

function memory(): { heap: number; rss: number } {
  gc();
  gc();
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed, rss: usage.rss };
}

const { dir, mode } = JSON.parse(process.env.BENCH_REHYDRATE ?? '{}') as { dir: string; mode: RehydrateRun['mode'] };
const store = LmdbStore.open(dir);
const records = store.table<ActorRecord>('actors');
// Module scope: what the baselines build stays reachable until memory has been read.
const keep: unknown[] = [];
let host: ActorHost | null = null;
if (mode === 'host') {
  host = new ActorHost(store, systemClock, createLogger('silent'));
  host.register(parkedSessionMachine);
}

const before = memory();
const startedAt = Date.now();
const t0 = performance.now();
let actors = 0;
if (host) {
  actors = host.rehydrate();
} else {
  for (const { value: record } of records.getRange()) {
    if (record.done) continue;
    actors++;
    if (mode === 'actors')
      keep.push(
        createActor(parkedSessionMachine.logic as AnyStateMachine, {
          snapshot: record.snapshot as Snapshot<unknown>,
          id: record.id,
        }).start(),
      );
    else keep.push(record.snapshot);
  }
}
const ms = performance.now() - t0;
let settledMs: number | null = null;
let recordsRewritten: number | null = null;
if (host) {
  await store.flushed;
  await new Promise((resolve) => setImmediate(resolve));
  settledMs = performance.now() - t0;
  recordsRewritten = 0;
  for (const { value: record } of records.getRange()) if (record.updatedAt >= startedAt) recordsRewritten++;
}
const after = memory();
const run: RehydrateRun = {
  mode,
  actors,
  ms: Math.round(ms),
  settledMs: settledMs === null ? null : Math.round(settledMs),
  recordsRewritten,
  heapBeforeMb: mb(before.heap),
  heapAfterMb: mb(after.heap),
  rssBeforeMb: mb(before.rss),
  rssAfterMb: mb(after.rss),
};
process.stdout.write(`rehydrate-result ${JSON.stringify(run)}\n`);
process.exit(0);
