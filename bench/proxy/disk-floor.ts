// The disk's floor under the proxy path's tail (issue 28): one LMDB `put` awaited, then `flushed`
// awaited, in a row, on a store opened as the gateway opens it. A non-streaming answer waits for
// its settle commit to be durable, so no p99 at one connection can go below this one's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LmdbStore } from '../../runtime/store/lmdb-store.js';

/** Latency of one durable LMDB commit, ms. */
export interface DiskFloor {
  commits: number;
  p50Ms: number;
  p99Ms: number;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

/** Times `commits` durable commits of one small value each (a fresh store in a temporary directory). */
export async function measureDiskFloor(commits = 1500): Promise<DiskFloor> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-disk-floor-'));
  const store = LmdbStore.open(dir);
  try {
    const table = store.table<{ n: number; at: number }>('floor');
    const times: number[] = [];
    for (let n = 0; n < commits; n++) {
      const start = performance.now();
      await table.put(`k${n % 64}`, { n, at: Date.now() });
      await store.flushed;
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    const round = (ms: number) => Math.round(ms * 1000) / 1000;
    return { commits, p50Ms: round(quantile(times, 0.5)), p99Ms: round(quantile(times, 0.99)) };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
