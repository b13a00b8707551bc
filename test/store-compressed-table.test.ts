import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LmdbStore } from '../runtime/store/lmdb-store.js';
import { tablePackr } from '../runtime/store/table-packr.js';
import { tempDataDir } from './harness.js';

const test = suite('store: a compressed LMDB table (large records, values written before compression still read)');

/** A record the size of a stored response: an owner and 1.5 KB of JSON text. */
const recordOf = (n: number) => ({
  accountId: `acct_${n}`,
  json: JSON.stringify({ id: `resp_${n}`, output: 'The quick brown fox jumps over the lazy dog. '.repeat(30), n }),
});

/** The bytes LMDB holds for `key`, read without any compression setting. */
async function storedBytes(dir: string, key: string): Promise<Buffer> {
  const root = open({ path: join(dir, 'lmdb'), maxDbs: 64, readOnly: true });
  try {
    const raw = root.openDB<Buffer, string>({ name: 'records', encoding: 'binary', compression: false });
    return Buffer.from(raw.get(key)!);
  } finally {
    await root.close();
  }
}

test('old plain values read, new ones are stored compressed, and a failed transaction restores what a key held', async () => {
  const dir = tempDataDir();
  try {
    const before = LmdbStore.open(dir);
    const plain = before.table<ReturnType<typeof recordOf>>('records');
    for (let n = 0; n < 20; n++) await plain.put(`old_${n}`, recordOf(n));
    await before.close();

    const store = LmdbStore.open(dir);
    const table = store.table<ReturnType<typeof recordOf>>('records', { compressed: true });
    for (let n = 0; n < 20; n++) assert.equal(table.get(`old_${n}`), recordOf(n), `old_${n} reads as written`);
    for (let n = 20; n < 40; n++) await table.put(`new_${n}`, recordOf(n));
    for (let n = 20; n < 40; n++) assert.equal(table.get(`new_${n}`), recordOf(n), `new_${n} reads back`);
    // Bytes that travelled packed (a cluster node's apply, records inside the value) go in and come out the same way.
    await table.putPacked('packed', Buffer.from(tablePackr.pack(recordOf(99))));
    assert.equal(table.get('packed'), recordOf(99));

    // A transaction that throws puts back what the key held, through the same compression.
    await store
      .transaction(() => {
        void table.put('new_20', recordOf(1_000));
        throw new Error('undo me');
      })
      .catch((err: Error) => assert.is(err.message, 'undo me'));
    assert.equal(table.get('new_20'), recordOf(20));
    await store.close();

    const plainBytes = await storedBytes(dir, 'old_0');
    const compressedBytes = await storedBytes(dir, 'new_20');
    assert.ok(plainBytes[0]! < 250, 'a value written before compression is stored as it was');
    assert.ok(compressedBytes[0]! >= 254, 'a new value carries LZ4 compression marker');
    assert.ok(
      compressedBytes.length * 3 < plainBytes.length,
      `compressed ${compressedBytes.length} bytes against ${plainBytes.length}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a threshold: values up to it stay plain, larger ones are compressed, and values written with the default still read', async () => {
  const dir = tempDataDir();
  const sized = (n: number, bytes: number) => ({ accountId: `acct_${n}`, json: 'x'.repeat(bytes) });
  try {
    const before = LmdbStore.open(dir);
    const defaults = before.table<ReturnType<typeof sized>>('records', { compressed: true });
    await defaults.put('default_1500', sized(1, 1500));
    await before.close();

    const store = LmdbStore.open(dir);
    const table = store.table<ReturnType<typeof sized>>('records', { compressed: { over: 1900 } });
    assert.equal(table.get('default_1500'), sized(1, 1500), 'compressed with the default threshold, still read');
    // In a transaction, as the stored responses are written with the charge.
    await store.transaction(() => {
      void table.put('small', sized(2, 1500));
      void table.put('large', sized(3, 4000));
    });
    assert.equal(table.get('small'), sized(2, 1500));
    assert.equal(table.get('large'), sized(3, 4000));
    await store.close();

    assert.ok((await storedBytes(dir, 'default_1500'))[0]! >= 254, 'over 1 KB with the default: compressed');
    const small = await storedBytes(dir, 'small');
    assert.ok(small[0]! < 250 && small.length > 1500, 'under the threshold: plain');
    const large = await storedBytes(dir, 'large');
    assert.ok(large[0]! >= 254 && large.length < 1000, `over the threshold: compressed (${large.length} bytes)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
