import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Store } from '../../runtime/store/store.js';
import { tablePackr as packr } from '../../runtime/store/table-packr.js';

/** What the contract needs of an implementation: a fresh store, and how to dispose of it. */
export interface StoreUnderTest {
  open(): Store | Promise<Store>;
  dispose(store: Store): Promise<void>;
}

/** The behaviour every `Store` must have; registered on `test` for one implementation. */
export function storeContract(test: Test, impl: StoreUnderTest): void {
  const withStore = (name: string, body: (store: Store) => Promise<void> | void) =>
    test(name, async () => {
      const store = await impl.open();
      try {
        await body(store);
      } finally {
        await impl.dispose(store);
      }
    });

  withStore(
    'a value reads back equal, and a copy: changing the object after put changes nothing stored',
    async (store) => {
      const table = store.table<{ n: number; list: unknown[]; nested: { ok: boolean; none: null } }>('values');
      const value = { n: 1.5, list: [1, 'two', { three: 3 }], nested: { ok: true, none: null } };
      await table.put('k', value);
      value.n = 99;
      assert.equal(table.get('k'), { n: 1.5, list: [1, 'two', { three: 3 }], nested: { ok: true, none: null } });
      const read = table.get('k')!;
      read.n = 42;
      assert.is(table.get('k')!.n, 1.5);
    },
  );

  withStore('a value written packed (as a log entry carries it) reads back as if put', async (store) => {
    const table = store.table<Record<string, unknown>>('packed');
    const value = {
      id: 'acct_1',
      balance: -12_345,
      ratio: 0.25,
      big: 2 ** 40,
      tags: ['a', 1, null, { deep: [true, false] }],
      blob: Buffer.from([0, 1, 2, 255]),
      none: null,
      plan: { id: 'pro', until: 1_800_000_000_000 },
    };
    await table.putPacked('k', packr.pack(value));
    await table.put('same', value);
    assert.equal(table.get('k'), table.get('same'));
    assert.equal(table.get('k'), value);
    await store
      .transaction(() => {
        void table.putPacked('k', packr.pack({ id: 'overwritten' }));
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    assert.equal(table.get('k'), value, 'a throwing transaction undoes a packed write too');
  });

  withStore('missing keys read undefined; doesExist tells; remove of a missing key is harmless', async (store) => {
    const table = store.table<string>('presence');
    assert.is(table.get('nope'), undefined);
    assert.is(table.doesExist('nope'), false);
    await table.put('yes', 'v');
    assert.is(table.doesExist('yes'), true);
    await table.remove('yes');
    await table.remove('yes');
    assert.is(table.get('yes'), undefined);
    assert.is(table.doesExist('yes'), false);
  });

  withStore('tables are separate namespaces', async (store) => {
    await store.table<string>('a').put('k', 'in a');
    assert.is(store.table<string>('b').get('k'), undefined);
    assert.is(store.table<string>('a').get('k'), 'in a');
  });

  withStore('array keys order element by element, numbers numerically, shorter prefixes first', async (store) => {
    const table = store.table<number>('ordered');
    const keys: [string, number][] = [
      ['b', 1],
      ['a', 10],
      ['a', 2],
      ['a', 1],
      ['b', 0],
    ];
    for (const [i, key] of keys.entries()) await table.put(key, i);
    await table.put(['a', 1, 'x'], -1);
    assert.equal(
      [...table.getKeys()],
      [
        ['a', 1],
        ['a', 1, 'x'],
        ['a', 2],
        ['a', 10],
        ['b', 0],
        ['b', 1],
      ],
    );
  });

  withStore('ranges: start inclusive, end exclusive, limit, and reverse from the high end', async (store) => {
    const table = store.table<number>('ranges');
    for (let i = 1; i <= 9; i++) await table.put(['acct', i], i);
    await table.put(['other', 1], 100);
    const values = (options: Parameters<typeof table.getRange>[0]) =>
      [...table.getRange(options)].map((entry) => entry.value);
    assert.equal(values({ start: ['acct', 3], end: ['acct', 6] }), [3, 4, 5]);
    assert.equal(values({ start: ['acct', 0], end: ['acct', Number.MAX_SAFE_INTEGER], limit: 2 }), [1, 2]);
    assert.equal(
      values({ start: ['acct', Number.MAX_SAFE_INTEGER], end: ['acct', 0], reverse: true, limit: 3 }),
      [9, 8, 7],
    );
    assert.equal(values({ start: ['acct', 5], end: ['acct', 2], reverse: true }), [5, 4, 3]);
    assert.equal(values({ start: ['acct'], end: ['acct', '\uffff'] }), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.is(table.getKeysCount({ start: ['acct', 0], end: ['acct', 5] }), 4);
    assert.is([...table.getRange()].length, 10);
    assert.equal([...table.getRange({ start: ['acct', 4], end: ['acct', 4] })], []);
  });

  withStore('string keys under a prefix are found with a high sentinel', async (store) => {
    const table = store.table<string>('strings');
    for (const key of ['file-b', 'file-a', 'filf', 'file-ü', 'fild']) await table.put(['t', key], key);
    assert.equal(
      [...table.getRange({ start: ['t', 'file-'], end: ['t', 'file-\uffff'] })].map((entry) => entry.value),
      ['file-a', 'file-b', 'file-ü'],
    );
  });

  withStore('a transaction sees its own writes and commits them together', async (store) => {
    const table = store.table<number>('tx');
    const result = await store.transaction(() => {
      void table.put('a', 1);
      void table.put('b', (table.get('a') ?? 0) + 1);
      return 'done';
    });
    assert.is(result, 'done');
    assert.is(table.get('a'), 1);
    assert.is(table.get('b'), 2);
  });

  withStore('concurrent read-check-write transactions never lose an update', async (store) => {
    const table = store.table<number>('counter');
    await table.put('n', 0);
    await Promise.all(
      Array.from({ length: 50 }, () => store.transaction(() => void table.put('n', table.get('n')! + 1))),
    );
    assert.is(table.get('n'), 50);
  });

  withStore('a transaction whose callback throws writes nothing and rejects', async (store) => {
    const table = store.table<number>('rollback');
    await table.put('kept', 1);
    const outcome = await store
      .transaction(() => {
        void table.put('kept', 2);
        void table.put('new', 3);
        void table.remove('kept');
        throw new Error('boom');
      })
      .then(
        () => 'committed',
        (err: Error) => err.message,
      );
    assert.is(outcome, 'boom');
    assert.is(table.get('kept'), 1);
    assert.is(table.get('new'), undefined);
  });

  withStore(
    'a write told what its key held is undone to that value, or removed when it held nothing',
    async (store) => {
      const table = store.table<{ n: number }>('held');
      await table.put('old', { n: 1 });
      const outcome = await store
        .transaction(() => {
          const old = table.get('old');
          void table.put('old', { n: 2 }, { value: old });
          void table.put('fresh', { n: 3 }, { value: table.get('fresh') });
          throw new Error('boom');
        })
        .then(
          () => 'committed',
          (err: Error) => err.message,
        );
      assert.is(outcome, 'boom');
      assert.equal(table.get('old'), { n: 1 });
      assert.is(table.get('fresh'), undefined);
    },
  );

  withStore('a table with shared reads sees every write at once, rolled back ones undone', async (store) => {
    type Account = { id: string; balance: number; plan: { id: string } | null };
    const table = store.table<Account>('shared', { sharedReads: { maxKeys: 2 } });
    await table.put('a', { id: 'a', balance: 1, plan: { id: 'pro' } });
    const first = table.get('a')!;
    assert.equal(first, { id: 'a', balance: 1, plan: { id: 'pro' } });
    for (let balance = 2; balance < 6; balance++)
      await store.transaction(() => void table.put('a', { ...table.get('a')!, balance }, { value: table.get('a') }));
    assert.is(table.get('a')!.balance, 5);
    await table.putPacked('a', packr.pack({ id: 'a', balance: 7, plan: null }));
    assert.equal(table.get('a'), { id: 'a', balance: 7, plan: null }, 'packed bytes written beside it are read');
    await store
      .transaction(() => {
        void table.put('a', { id: 'a', balance: 8, plan: null }, { value: table.get('a') });
        assert.is(table.get('a')!.balance, 8, 'the transaction reads its own write');
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    assert.is(table.get('a')!.balance, 7, 'a rolled-back write is not read');
    for (const key of ['b', 'c', 'd']) await table.put(key, { id: key, balance: 0, plan: null });
    assert.is(table.get('a')!.balance, 7, 'a key read again after more keys than are kept');
    await table.remove('a');
    assert.is(table.get('a'), undefined);
  });

  withStore('transactionSync commits before it returns', (store) => {
    const table = store.table<string>('sync');
    store.transactionSync(() => void table.put('k', 'v'));
    assert.is(table.get('k'), 'v');
  });

  withStore('a value that cannot be encoded is refused, and the store goes on', async (store) => {
    const table = store.table<unknown>('encoding');
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 200_000; i++) deep = { a: deep };
    const refused = await store
      .transaction(() => void table.put('deep', deep))
      .then(
        () => false,
        () => true,
      );
    assert.ok(refused);
    assert.is(table.get('deep'), undefined);
    await table.put('fine', { ok: true });
    assert.equal(table.get('fine'), { ok: true });
  });

  withStore('flushed resolves once writes are durable', async (store) => {
    await store.table<number>('durable').put('k', 1);
    await store.flushed;
    assert.is(store.table<number>('durable').get('k'), 1);
  });
}
