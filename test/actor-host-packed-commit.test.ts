import { rmSync } from 'node:fs';
import { unpack } from 'msgpackr';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ActorStep } from '../runtime/host/actor-steps.js';
import type { ActorRecord } from '../runtime/host/actor-store.js';
import { packRecordAndStep } from '../runtime/host/packed-commit.js';
import { LmdbStore } from '../runtime/store/lmdb-store.js';
import { MemoryStore } from '../runtime/store/memory-store.js';
import type { Store } from '../runtime/store/store.js';
import { tablePackr } from '../runtime/store/table-packr.js';
import { tempDataDir } from './harness.js';

const test = suite(
  'actor host: a record and its step packed with one packing of the context read back as packed apart',
);

/** A context with what msgpack records and plain values meet in a call's: repeated shapes, many shapes, nesting, odd values. */
function context(): Record<string, unknown> {
  const items = Array.from({ length: 90 }, (_, i) =>
    i % 3 === 0
      ? { id: `item_${i}`, role: 'user', text: `Tell me more ${i}. Ünïcödé 再见 👋`, audioMs: i * 20 }
      : i % 3 === 1
        ? { id: `item_${i}`, role: 'assistant', text: 'x'.repeat(i), audioMs: 0, producedMs: i }
        : { type: 'function_call', id: `item_${i}`, callId: `call_${i}`, name: 'lookup', arguments: '{"a":1}' },
  );
  // More distinct shapes than msgpackr's 64 own record ids: its ids wrap around inside one value.
  const shapes = Array.from({ length: 80 }, (_, i) => ({ [`k${i}`]: i, common: true, [`z${i}`]: [i, { nested: i }] }));
  return {
    id: 'call_1',
    items,
    shapes,
    usage: { audioInMs: 1.5, audioOutMs: 2 ** 40, promptTokens: -3, completionTokens: 0 },
    turn: null,
    missing: undefined,
    deadlines: {},
    big: 'y'.repeat(5_000),
    queue: [],
  };
}

function fixture(): { record: ActorRecord; step: ActorStep } {
  const ctx = context();
  const snapshot = { status: 'active', value: { live: 'streaming' }, historyValue: {}, context: ctx, children: {} };
  const record: ActorRecord = {
    id: 'call_1',
    machine: 'realtime-call',
    ownerId: 'acct_1',
    snapshot,
    nextSeq: 42,
    done: false,
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_123,
    steps: 7,
  };
  const step: ActorStep = {
    step: 7,
    ts: record.updatedAt,
    cause: 'SPEECH_STOPPED',
    upToSeq: 41,
    status: 'active',
    value: snapshot.value,
    context: ctx,
  };
  return { record, step };
}

test('the bytes decode to what packing each value apart decodes to', () => {
  const { record, step } = fixture();
  const packed = packRecordAndStep(record, step);
  assert.equal(tablePackr.unpack(packed.record), tablePackr.unpack(tablePackr.pack(record)));
  assert.equal(tablePackr.unpack(packed.step), tablePackr.unpack(tablePackr.pack(step)));
  assert.equal(unpack(packed.record), unpack(tablePackr.pack(record)));
  assert.equal(unpack(packed.step), unpack(tablePackr.pack(step)));
});

test('a snapshot without that context (or none) is packed whole in the record', () => {
  const { record, step } = fixture();
  for (const snapshot of [null, { status: 'done', context: { other: 1 } }]) {
    const other = { ...record, snapshot };
    assert.equal(unpack(packRecordAndStep(other, step).record), unpack(tablePackr.pack(other)));
  }
});

const dirs: string[] = [];
for (const [name, open] of [
  ['LMDB', () => LmdbStore.open(dirs[dirs.push(tempDataDir()) - 1]!)],
  ['memory', () => new MemoryStore()],
] as const)
  test(`written packed in one transaction, the ${name} store reads them back as they were`, async () => {
    const store: Store = open();
    try {
      const { record, step } = fixture();
      const packed = packRecordAndStep(record, step);
      const records = store.table<ActorRecord>('records');
      const steps = store.table<ActorStep>('steps');
      await store.transaction(() => {
        void records.putPacked(record.id, packed.record);
        void steps.putPacked([record.id, step.step], packed.step);
        void records.put('apart', record);
        void steps.put(['apart', step.step], step);
      });
      assert.equal(records.get(record.id), records.get('apart'));
      assert.equal(steps.get([record.id, step.step]), steps.get(['apart', step.step]));
      assert.is((records.get(record.id) as ActorRecord).nextSeq, 42);
    } finally {
      await store.close();
    }
  });

test.after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

test.run();
