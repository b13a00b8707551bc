import { readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LmdbStore } from '../runtime/store/lmdb-store.js';
import { releaseMappedPages, sharedReadOnlyMappings } from '../runtime/store/mapped-pages.js';
import { tempDataDir } from './harness.js';

const test = suite("store: the pages of LMDB's map leave the process's RSS, the data stays whole");

const linux = process.platform === 'linux';
/** RssFile of this process in bytes (file pages mapped and resident). */
const rssFile = () => Number(/RssFile:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;
const entryOf = (n: number) => ({ n, account: `acct_${n % 97}`, note: `entry ${n} `.repeat(12) });

/** Writes `count` ledger-like entries in batches, then reads every one (every page mapped). */
async function fill(store: LmdbStore, count: number): Promise<void> {
  const table = store.table<ReturnType<typeof entryOf>>('ledger');
  for (let n = 0; n < count; n += 1000)
    await store.transaction(() => {
      for (let i = n; i < Math.min(count, n + 1000); i++) void table.put(`e_${String(i).padStart(7, '0')}`, entryOf(i));
    });
}

function readAll(store: LmdbStore): number {
  let read = 0;
  for (const { key, value } of store.table<ReturnType<typeof entryOf>>('ledger').getRange()) {
    assert.equal(value, entryOf(Number(String(key).slice(2))), `${String(key)} reads as written`);
    read++;
  }
  return read;
}

test('releasing drops the mapped pages from RSS; every entry then reads the same and writes go on', async () => {
  if (!linux) return console.log('  skipped: /proc and madvise are Linux');
  const dir = tempDataDir();
  const store = LmdbStore.open(dir);
  try {
    await fill(store, 40_000);
    assert.is(readAll(store), 40_000);
    const file = join(dir, 'lmdb', 'data.mdb');
    assert.ok(sharedReadOnlyMappings(realpathSync(file)).length > 0, 'LMDB maps data.mdb read-only and shared');
    const size = statSync(file).size;
    const before = rssFile();
    const advised = releaseMappedPages(file);
    const after = rssFile();
    assert.ok(advised >= size, `the whole map is advised (${advised} bytes for a ${size}-byte file)`);
    // Most of what the reads mapped leaves RSS (the data file is several MB; hot pages may refault at once).
    assert.ok(before - after > size / 2, `RssFile ${before} -> ${after} for a ${size}-byte file`);

    assert.is(readAll(store), 40_000, 'every entry reads back from the page cache');
    await fill(store, 41_000);
    assert.is(readAll(store), 41_000, 'writes after the release land and read back');
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a store opened with releasePagesEveryMs releases by itself, and stops before it closes', async () => {
  if (!linux) return console.log('  skipped: /proc and madvise are Linux');
  const dir = tempDataDir();
  const store = LmdbStore.open(dir, { releasePagesEveryMs: 50 });
  try {
    await fill(store, 40_000);
    const size = statSync(join(dir, 'lmdb', 'data.mdb')).size;
    readAll(store);
    const mapped = rssFile();
    let released = false;
    for (let wait = 0; wait < 100 && !released; wait++) {
      await sleep(50);
      released = mapped - rssFile() > size / 2;
    }
    assert.ok(released, `RssFile fell by more than half the ${size}-byte file within 5 s`);
  } finally {
    await store.close();
  }
  // The timer is gone with the store: nothing advises an unmapped range after close.
  await sleep(150);
  const reopened = LmdbStore.open(dir);
  try {
    assert.is(readAll(reopened), 40_000, 'the closed store reopens whole');
  } finally {
    await reopened.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a file that is not mapped, or does not exist, releases nothing', () => {
  const dir = tempDataDir();
  try {
    assert.is(releaseMappedPages(join(dir, 'absent.mdb')), 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
