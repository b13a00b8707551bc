import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assign, emit, setup } from 'xstate';
import { ActorHost } from '../runtime/host/actor-host.js';
import type { LogEvent } from '../runtime/host/actor-log.js';
import { SimulatedClock } from '../runtime/clock.js';
import { createLogger } from '../runtime/logger.js';
import type { Store } from '../runtime/store/store.js';
import { LmdbStore } from '../runtime/store/lmdb-store.js';
import { MemoryStore } from '../runtime/store/memory-store.js';
import { tempDataDir } from './harness.js';

/** A counter that logs every step, and a deadline-driven timeout kept as data in context. */
const counter = setup({
  types: {
    context: {} as { count: number; deadlines: { wake?: number | null } },
    events: {} as { type: 'INC' } | { type: 'SLEEP'; until: number } | { type: 'TIMER'; name: string },
    input: {} as { start: number },
  },
}).createMachine({
  context: ({ input }) => ({ count: input.start, deadlines: {} }),
  initial: 'counting',
  states: {
    counting: {
      on: {
        INC: {
          actions: [
            assign({ count: ({ context }) => context.count + 1 }),
            emit(({ context }) => ({ type: 'counted', count: context.count })),
          ],
        },
        SLEEP: { target: 'sleeping', actions: assign({ deadlines: ({ event }) => ({ wake: event.until }) }) },
      },
    },
    sleeping: {
      on: { TIMER: { target: 'woken', actions: [assign({ deadlines: () => ({}) }), emit({ type: 'woke' })] } },
    },
    woken: { type: 'final' },
  },
});

/** A host on one store, and how to bring up a fresh host on the same data (a restart). */
interface Environment {
  store: Store;
  host: ActorHost;
  clock: SimulatedClock;
}

/** How one store implementation is opened, reopened after a "restart" and disposed of. */
interface StoreKind {
  name: string;
  open(): { store: Store; reopen(): Store; dispose(): Promise<void> };
}

const kinds: StoreKind[] = [
  {
    name: 'LMDB',
    open() {
      const dir = tempDataDir();
      let store: Store = LmdbStore.open(dir);
      return {
        store,
        reopen: () => (store = LmdbStore.open(dir)),
        dispose: async () => {
          await store.close().catch(() => undefined);
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'memory',
    open() {
      const store = new MemoryStore();
      return { store, reopen: () => store, dispose: () => store.close() };
    },
  },
];

function hostOn(store: Store, clock: SimulatedClock): ActorHost {
  const host = new ActorHost(store, clock, createLogger('silent'));
  // A sleeping counter only waits for its deadline: it stays parked in the store after a restart.
  host.register({
    name: 'counter',
    logic: counter,
    parks: (persisted) => (persisted as { value: unknown }).value === 'sleeping',
  });
  return host;
}

for (const kind of kinds) {
  const test = suite(`actor host on ${kind.name}: persisted transitions, followers, rehydration and deadlines`);

  const withHost = (
    name: string,
    body: (env: Environment, restart: () => Promise<Environment>) => Promise<void> | void,
  ) =>
    test(name, async () => {
      const opened = kind.open();
      const clock = new SimulatedClock();
      let env: Environment = { store: opened.store, host: hostOn(opened.store, clock), clock };
      const restart = async () => {
        await env.host.close();
        if (kind.name === 'LMDB') await env.store.close();
        const store = opened.reopen();
        env = { store, host: hostOn(store, clock), clock };
        return env;
      };
      try {
        await body(env, restart);
      } finally {
        await env.host.close();
        await opened.dispose();
      }
    });

  withHost('every transition is persisted with its events, gap-free, before send resolves', async ({ host }) => {
    await host.spawn('counter', { id: 'c1', ownerId: 'acct', input: { start: 0 } });
    for (let i = 0; i < 5; i++) await host.send('c1', { type: 'INC' });
    const events = host.events('c1', 0, 100);
    assert.equal(
      events.map((e) => e.seq),
      [1, 2, 3, 4, 5],
    );
    assert.equal(
      events.map((e) => e.data.count),
      [1, 2, 3, 4, 5],
    );
    assert.is((host.find('c1', 'acct')!.snapshot as { context: { count: number } }).context.count, 5);
    assert.is(host.find('c1', 'someone-else'), undefined);
  });

  withHost('a follower joining mid-stream gets history then live events with no gap or duplicate', async ({ host }) => {
    await host.spawn('counter', { id: 'c2', ownerId: 'acct', input: { start: 0 } });
    const burst = Array.from({ length: 50 }, () => host.send('c2', { type: 'INC' }));
    const seen: number[] = [];
    // Joins while commits are still landing.
    host.follow('c2', 0, { event: (e: LogEvent) => seen.push(e.seq), end: () => {} });
    await Promise.all(burst);
    for (let i = 0; i < 10; i++) await host.send('c2', { type: 'INC' });
    assert.equal(
      seen,
      Array.from({ length: 60 }, (_, i) => i + 1),
    );
  });

  withHost(
    'transitions made while their commit waits for the store join it: one write, every event, durable before seen',
    async ({ host, store }, restart) => {
      await host.spawn('counter', { id: 'j1', ownerId: 'acct', input: { start: 0 } });
      let writes = 0;
      const transaction = store.transaction.bind(store);
      store.transaction = (action) => {
        writes++;
        return transaction(action);
      };
      const seen: number[] = [];
      host.follow('j1', 0, { event: (e: LogEvent) => seen.push(e.data.count as number), end: () => {} });
      await Promise.all(Array.from({ length: 20 }, () => host.send('j1', { type: 'INC' })));
      assert.equal(
        seen,
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
      assert.is(host.transitions.get('counter'), 21, 'every transition counted (the first state too)');
      // LMDB starts its write a task later, so the burst is one write; the memory store writes each at once.
      if (kind.name === 'LMDB') assert.ok(writes < 20, `${writes} writes for 20 transitions`);
      else assert.is(writes, 20);
      const { host: after } = await restart();
      after.rehydrate();
      assert.equal(
        after.events('j1', 0, 100).map((e) => [e.seq, e.data.count]),
        Array.from({ length: 20 }, (_, i) => [i + 1, i + 1]),
      );
      assert.is((after.find('j1', 'acct')!.snapshot as { context: { count: number } }).context.count, 20);
    },
  );

  test('with a step history, joined transitions keep one step each, and observers hear of every step', async () => {
    const opened = kind.open();
    const clock = new SimulatedClock();
    const host = new ActorHost(opened.store, clock, createLogger('silent'), { history: true });
    host.register({ name: 'counter', logic: counter });
    try {
      await host.spawn('counter', { id: 'h1', ownerId: 'acct', input: { start: 0 } });
      const observed: [number, number[]][] = [];
      host.observe((transition) => {
        observed.push([transition.step!.step, transition.events.map((e) => e.data.count as number)]);
      });
      await Promise.all(Array.from({ length: 5 }, () => host.send('h1', { type: 'INC' })));
      assert.equal(
        host.steps('h1', 0, 100).map((step) => [step.step, step.upToSeq, (step.context as { count: number }).count]),
        [
          [1, 0, 0],
          [2, 1, 1],
          [3, 2, 2],
          [4, 3, 3],
          [5, 4, 4],
          [6, 5, 5],
        ],
      );
      assert.equal(observed, [
        [2, [1]],
        [3, [2]],
        [4, [3]],
        [5, [4]],
        [6, [5]],
      ]);
      assert.is(host.find('h1', 'acct')!.steps, 6);
    } finally {
      await host.close();
      await opened.dispose();
    }
  });

  withHost(
    'live actors are listed in the shared registry while they run, and leave it when they finish',
    async ({ host, clock }) => {
      await host.spawn('counter', { id: 'c4', ownerId: 'acct', input: { start: 0 } });
      assert.equal(
        host.registry.list('counter').map((actor) => [actor.id, actor.ownerId]),
        [['c4', 'acct']],
      );
      await host.send('c4', { type: 'SLEEP', until: clock.now() + 10 });
      const ended = new Promise<void>((resolve) => host.follow('c4', 0, { event: () => {}, end: resolve }));
      clock.advance(10);
      await ended;
      assert.equal(host.registry.list('counter'), []);
    },
  );

  withHost(
    'after a restart unfinished actors are rehydrated, keep their log position, and deadlines fire',
    async ({ host: first, clock }, restart) => {
      await first.spawn('counter', { id: 'c3', ownerId: 'acct', input: { start: 10 } });
      await first.send('c3', { type: 'INC' });
      await first.send('c3', { type: 'SLEEP', until: clock.now() + 150 });
      const { host } = await restart();
      assert.is(host.rehydrate(), 1);
      await host.send('c3', { type: 'INC' }); // ignored while sleeping
      const ended = new Promise<void>((resolve) => host.follow('c3', 1, { event: () => {}, end: resolve }));
      clock.advance(149);
      assert.ok(host.isLive('c3'), 'not due yet');
      clock.advance(1);
      await ended;
      const events = host.events('c3', 0, 100);
      assert.equal(
        events.map((e) => [e.seq, e.type]),
        [
          [1, 'counted'],
          [2, 'woke'],
        ],
      );
      assert.ok(host.find('c3', 'acct')!.done);
      assert.is(host.rehydrate(), 0, 'finished actors stay parked');
    },
  );

  withHost(
    'parked actors stay in the store after a restart until an event or their deadline reaches them',
    async ({ host: first, clock }, restart) => {
      await first.spawn('counter', { id: 'p1', ownerId: 'acct', input: { start: 0 } });
      await first.spawn('counter', { id: 'p2', ownerId: 'acct', input: { start: 0 } });
      await first.spawn('counter', { id: 'busy', ownerId: 'acct', input: { start: 0 } });
      await first.send('p1', { type: 'SLEEP', until: clock.now() + 100 });
      await first.send('p2', { type: 'SLEEP', until: clock.now() + 5_000 });
      const { host } = await restart();
      assert.is(host.rehydrate(), 3);
      assert.equal(
        host.registry.list('counter').map((actor) => actor.id),
        ['busy'],
        'only the counting actor is in memory',
      );
      assert.is(host.parkedCount, 2);
      assert.ok(host.isLive('p1') && host.isLive('p2'), 'parked actors are still unfinished and reachable');
      // An event wakes p2 (and is taken as it would have been: INC is ignored while sleeping).
      assert.ok(host.accepts('p2', { type: 'TIMER' }));
      assert.is(host.parkedCount, 1);
      // p1's deadline was armed from the index: it fires, wakes p1, and p1 finishes.
      const ended = new Promise<void>((resolve) => host.follow('p1', 0, { event: () => {}, end: resolve }));
      clock.advance(100);
      await ended;
      assert.ok(host.find('p1', 'acct')!.done);
      assert.equal(
        host.events('p1', 0, 10).map((e) => e.type),
        ['woke'],
      );
      // p2 was only checked, never sent anything: once idle it is parked again.
      await new Promise((resolve) => setImmediate(resolve));
      assert.is(host.parkedCount, 1);
      assert.equal(
        host.registry.list('counter').map((actor) => actor.id),
        ['busy'],
      );
    },
  );

  withHost(
    'a store written before the unfinished index existed gets it built on the first boot',
    async ({ host: first, store, clock }, restart) => {
      await first.spawn('counter', { id: 'old1', ownerId: 'acct', input: { start: 0 } });
      await first.spawn('counter', { id: 'old2', ownerId: 'acct', input: { start: 0 } });
      await first.send('old2', { type: 'SLEEP', until: clock.now() + 50 });
      // What an older version left: records, no index, no marker.
      await store.transaction(() => {
        for (const id of ['old1', 'old2']) void store.table('actors_unfinished').remove(id);
        void store.table('actors_meta').remove('unfinished_index');
      });
      const { host } = await restart();
      assert.is(host.rehydrate(), 2);
      assert.equal(
        host.registry.list('counter').map((actor) => actor.id),
        ['old1'],
      );
      assert.is(host.parkedCount, 1);
      const ended = new Promise<void>((resolve) => host.follow('old2', 0, { event: () => {}, end: resolve }));
      clock.advance(50);
      await ended;
      assert.ok(host.find('old2', 'acct')!.done);
    },
  );

  withHost('machine definitions export as JSON for visualisers', ({ host }) => {
    const json = JSON.parse(JSON.stringify(host.definitions())) as { counter: { states: Record<string, unknown> } };
    assert.equal(Object.keys(json.counter.states), ['counting', 'sleeping', 'woken']);
  });

  test.run();
}
