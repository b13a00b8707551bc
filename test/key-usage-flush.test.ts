import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { KeyUsage } from '../actors/accounts/key-usage.js';
import { SimulatedClock } from '../runtime/clock.js';
import { MemoryStore } from '../runtime/store/memory-store.js';
import type { Store } from '../runtime/store/store.js';

const test = suite('key usage: request and denial counts read during a flush are neither missed nor doubled');

/** A store whose transactions run when the test says (the flush's write is in flight until then). */
function heldStore(): { store: Store; commit: () => void } {
  const inner = new MemoryStore();
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  const store: Store = {
    table: (name) => inner.table(name),
    transaction: (action) => gate.then(() => inner.transaction(action)),
    transactionSync: (action) => inner.transactionSync(action),
    refreshReads: () => inner.refreshReads(),
    get flushed() {
      return inner.flushed;
    },
    close: () => inner.close(),
  };
  return { store, commit: release };
}

test('counts stay exact before, during and after a flush (regression: a read in the flush window saw 0)', async () => {
  const { store, commit } = heldStore();
  const usage = new KeyUsage(store, new SimulatedClock(), 0);
  usage.countRequest('tok');
  usage.countDenied('tok');
  const flushed = usage.flush();
  assert.is(usage.get('tok').denied, 1, 'while the write is in flight');
  usage.countDenied('tok');
  assert.is(usage.get('tok').denied, 2, 'a new count during the flush');
  commit();
  await flushed;
  assert.equal([usage.get('tok').requests, usage.get('tok').denied], [1, 2], 'after it landed');
  await usage.flush();
  assert.equal([usage.get('tok').requests, usage.get('tok').denied], [1, 2], 'after the next flush');
  await usage.close();
});

test.run();
