import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { jetstream } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { packr, type Entry } from '../runtime/cluster/log-entry.js';
import { FencedError, ReplicatedStore } from '../runtime/cluster/replicated-store.js';
import { createLogger } from '../runtime/logger.js';
import { LmdbStore } from '../runtime/store/lmdb-store.js';
import type { Store } from '../runtime/store/store.js';
import { storeContract } from './contracts/store.js';
import { startNatsServer, type NatsServerUnderTest } from './doubles/nats-server.js';
import { tempDataDir } from './harness.js';

const logger = createLogger('silent');
let server: NatsServerUnderTest;
let nc: NatsConnection;
let streams = 0;
const dirs = new Map<Store, string>();

/** A node's store on its own LMDB directory, over the log `stream`. */
async function node(nodeId: string, stream: string, dir = tempDataDir()): Promise<ReplicatedStore> {
  const store = await ReplicatedStore.open(nc, LmdbStore.open(dir), {
    nodeId,
    stream,
    subject: `test.${stream}`,
    replicas: 1,
    logger,
  });
  dirs.set(store, dir);
  return store;
}

async function dispose(store: Store): Promise<void> {
  await store.close();
  rmSync(dirs.get(store)!, { recursive: true, force: true });
}

const contract = suite('store contract: ReplicatedStore (LMDB under a JetStream log on a real nats-server)');
contract.before(async () => {
  server = await startNatsServer({ jetstream: true, storeDir: tempDataDir() });
  nc = await connect({ servers: server.url });
});
storeContract(contract, { open: () => node('solo', `C${++streams}`), dispose });
contract.run();

const nodes = suite('ReplicatedStore: several nodes on one log');

nodes('a write on one node is read on another once it has synced, and survives the writer', async () => {
  const stream = `N${++streams}`;
  const a = await node('a', stream);
  const b = await node('b', stream);
  await a.table<{ v: number }>('t').put('k', { v: 1 });
  await b.sync();
  assert.equal(b.table<{ v: number }>('t').get('k'), { v: 1 });
  await dispose(a);
  await b.table<{ v: number }>('t').put('k2', { v: 2 });
  const c = await node('c', stream);
  assert.equal(c.table('t').get('k'), { v: 1 }, 'a node with an empty disk rebuilds from the log');
  assert.equal(c.table('t').get('k2'), { v: 2 });
  await dispose(b);
  await dispose(c);
});

nodes('read-check-write transactions racing from three nodes lose no update', async () => {
  const stream = `N${++streams}`;
  const all = await Promise.all(['a', 'b', 'c'].map((id) => node(id, stream)));
  const bump = (store: ReplicatedStore) =>
    store.transaction(() => {
      const table = store.table<number>('counter');
      void table.put('n', (table.get('n') ?? 0) + 1);
    });
  await Promise.all(all.flatMap((store) => Array.from({ length: 30 }, () => bump(store))));
  for (const store of all) await store.sync();
  for (const store of all) assert.is(store.table<number>('counter').get('n'), 90);
  for (const store of all) await dispose(store);
});

nodes('a balance spent from three nodes at once never goes below zero', async () => {
  const stream = `N${++streams}`;
  const all = await Promise.all(['a', 'b', 'c'].map((id) => node(id, stream)));
  await all[0]!.table<number>('balance').put('acct', 50);
  for (const store of all) await store.sync();
  let granted = 0;
  const spend = (store: ReplicatedStore) =>
    store
      .transaction(() => {
        const table = store.table<number>('balance');
        const left = table.get('acct')!;
        if (left < 1) return false;
        void table.put('acct', left - 1);
        return true;
      })
      .then(
        (ok) => void (ok && granted++),
        () => undefined,
      );
  await Promise.all(all.flatMap((store) => Array.from({ length: 40 }, () => spend(store))));
  for (const store of all) await store.sync();
  assert.is(granted, 50);
  for (const store of all) assert.is(store.table<number>('balance').get('acct'), 0);
  for (const store of all) await dispose(store);
});

nodes(
  'a fenced node cannot write: once another node writes its guard key, its writes fail and land nowhere',
  async () => {
    const stream = `N${++streams}`;
    const a = await node('a', stream);
    const b = await node('b', stream);
    await a.table<string>('fences').put('a', 'epoch-1');
    a.guardWith('fences', 'a');
    await a.table<string>('data').put('before', 'ok');
    await b.sync();
    await b.table<string>('fences').put('a', 'fenced-by-b');
    await a.sync();
    let fenced = false;
    a.onLost = (why) => (fenced = why === 'fenced');
    const error = await a
      .table<string>('data')
      .put('after', 'lost')
      .then(
        () => null,
        (err: unknown) => err,
      );
    assert.instance(error, FencedError);
    assert.ok(fenced && a.isFenced);
    await b.sync();
    assert.is(b.table('data').get('before'), 'ok');
    assert.is(b.table('data').get('after'), undefined);
    await dispose(a);
    await dispose(b);
  },
);

nodes('a restarted node resumes from what it applied and catches up', async () => {
  const stream = `N${++streams}`;
  const dir = tempDataDir();
  let a = await node('a', stream, dir);
  const b = await node('b', stream);
  await a.table<number>('t').put('x', 1);
  await a.close();
  for (let i = 0; i < 20; i++) await b.table<number>('t').put(`y${i}`, i);
  a = await node('a', stream, dir);
  assert.is(a.table('t').get('x'), 1);
  assert.is(a.table('t').get('y19'), 19);
  assert.ok(a.appliedSeq >= 21);
  await dispose(a);
  await dispose(b);
});

nodes('a key too long for LMDB is refused before it reaches the log, and the nodes go on', async () => {
  const stream = `N${++streams}`;
  const a = await node('a', stream);
  const b = await node('b', stream);
  const refused = await a
    .table<number>('t')
    .put('k'.repeat(3000), 1)
    .then(
      () => null,
      (err: unknown) => err,
    );
  assert.instance(refused, Error);
  await a.table<number>('t').put('fine', 2);
  await b.sync();
  assert.is(b.table('t').get('fine'), 2);
  await dispose(a);
  await dispose(b);
});

nodes.after(async () => {
  await nc.close();
  await server.stop();
});
nodes('an entry of an older node (values as plain maps, no records flag) is applied as the same objects', async () => {
  const stream = `O${++streams}`;
  const a = await node('a', stream);
  const value = { id: 'acct_old', nested: { list: [1, { two: 2 }] }, none: null };
  const entry: Entry = {
    tx: 'old-node-tx-1',
    node: 'old',
    reads: [],
    writes: [['t', 'k', packr.pack(value)]],
  };
  await jetstream(nc).publish(`test.${stream}`, packr.pack(entry), { msgID: entry.tx });
  await a.sync();
  assert.equal(a.table('t').get('k'), value);
  await a.table<{ v: number }>('t').put('k2', { v: 2 });
  const b = await node('b', stream);
  assert.equal(b.table('t').get('k'), value, 'a node rebuilt from the log reads it alike');
  assert.equal(b.table('t').get('k2'), { v: 2 });
  await dispose(a);
  await dispose(b);
});

nodes.run();
