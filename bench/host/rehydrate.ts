// Rehydration: write N parked sessions through the host, close the store, then in a fresh child
// process per run open the same directory and time `host.rehydrate()`, beside two baselines that
// do part of its work (decode every record; build and start the actors with no host).
import { execFile } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ActorHost } from '../../runtime/host/actor-host.js';
import { systemClock } from '../../runtime/clock.js';
import { createLogger } from '../../runtime/logger.js';
import { LmdbStore } from '../../runtime/store/lmdb-store.js';
import { benchDir } from './bench-host.js';
import { fixedFigure, type HostFigure } from './measure.js';
import { parkedSessionMachine, spawnParkedSessions } from './parked-sessions.js';
import type { RehydrateRun } from './rehydrate-main.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** The rehydration figures: how the records were written, then each run. */
export interface RehydrateResult {
  sessions: number;
  /** Writing the sessions through host.spawn (a throughput figure of its own). */
  write: HostFigure;
  runs: RehydrateRun[];
  /** Bytes of LMDB data on disk after writing. */
  dataMb: number;
}

/** Sessions spawned per host before it is closed: bounds the writer's memory. */
const WRITE_BATCH = 10_000;

async function writeSessions(dir: string, count: number, concurrency: number): Promise<HostFigure> {
  const store = LmdbStore.open(dir);
  const t0 = performance.now();
  for (let done = 0, batch = 0; done < count; batch++) {
    const host = new ActorHost(store, systemClock, createLogger('silent'));
    host.register(parkedSessionMachine);
    const size = Math.min(WRITE_BATCH, count - done);
    await spawnParkedSessions(host, { count: size, concurrency, prefix: `sess_bench_${batch}_` });
    await host.close();
    done += size;
  }
  const ms = performance.now() - t0;
  await store.close();
  const n = concurrency.toLocaleString('en-US');
  return fixedFigure(
    {
      group: 'rehydration',
      name: `write: host.spawn of parked sessions (awaiting_approval), ${n} at a time`,
      unit: 'actors',
    },
    count,
    ms,
    concurrency,
  );
}

function runChild(dir: string, mode: RehydrateRun['mode']): Promise<RehydrateRun> {
  const entry = resolve(ROOT, 'bench/host/rehydrate-main.ts');
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', entry],
      {
        cwd: ROOT,
        env: { ...process.env, BENCH_REHYDRATE: JSON.stringify({ dir, mode }) },
        timeout: 600_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (err, stdout, stderr) => {
        const line = stdout.split('\n').find((l) => l.startsWith('rehydrate-result '));
        if (err || !line)
          return fail(
            new Error(`rehydrate ${mode} run failed: ${err?.message ?? 'no result line'}\n${stderr.slice(-2000)}`),
          );
        done(JSON.parse(line.slice('rehydrate-result '.length)) as RehydrateRun);
      },
    );
  });
}

/** Disk blocks the LMDB data file really uses (the map is sparse). */
function diskMb(dir: string): number {
  const stat = statSync(join(dir, 'lmdb', 'data.mdb'));
  return Math.round((stat.blocks * 512) / 1024 ** 2);
}

/** Writes `count` parked sessions, then times rehydration in fresh processes (baselines first). */
export async function runRehydrate(options: { count: number; concurrency: number }): Promise<RehydrateResult> {
  const dir = benchDir();
  try {
    const write = await writeSessions(dir, options.count, options.concurrency);
    const dataMb = diskMb(dir);
    const runs: RehydrateRun[] = [];
    // The host run rewrites every record, so it goes last.
    for (const mode of ['scan', 'actors', 'host'] as const) runs.push(await runChild(dir, mode));
    return { sessions: options.count, write, runs, dataMb };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
