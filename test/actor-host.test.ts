import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assign, emit, setup } from 'xstate';
import { ActorHost } from '../runtime/actor-host.js';
import type { LogEvent } from '../runtime/actor-log.js';
import { systemClock } from '../runtime/clock.js';
import { createLogger } from '../runtime/logger.js';
import { Store } from '../runtime/store.js';
import { tempDataDir } from './harness.js';

const test = suite('actor host: persisted transitions, followers, rehydration and deadlines');

/** A counter that logs every step, and a deadline-driven timeout kept as data in context. */
const counter = setup({
  types: { context: {} as { count: number; deadlines: { wake?: number | null } }, events: {} as { type: 'INC' } | { type: 'SLEEP'; until: number } | { type: 'TIMER'; name: string }, input: {} as { start: number } },
}).createMachine({
  context: ({ input }) => ({ count: input.start, deadlines: {} }),
  initial: 'counting',
  states: {
    counting: {
      on: {
        INC: { actions: [assign({ count: ({ context }) => context.count + 1 }), emit(({ context }) => ({ type: 'counted', count: context.count }))] },
        SLEEP: { target: 'sleeping', actions: assign({ deadlines: ({ event }) => ({ wake: event.until }) }) },
      },
    },
    sleeping: {
      on: { TIMER: { target: 'woken', actions: [assign({ deadlines: () => ({}) }), emit({ type: 'woke' })] } },
    },
    woken: { type: 'final' },
  },
});

function open(dir: string) {
  const store = Store.open(dir);
  const host = new ActorHost(store, systemClock, createLogger('silent'));
  host.register({ name: 'counter', logic: counter });
  return { store, host };
}

test('every transition is persisted with its events, gap-free, before send resolves', async () => {
  const dir = tempDataDir();
  const { store, host } = open(dir);
  await host.spawn('counter', { id: 'c1', ownerId: 'acct', input: { start: 0 } });
  for (let i = 0; i < 5; i++) await host.send('c1', { type: 'INC' });
  const events = host.events('c1', 0, 100);
  assert.equal(events.map((e) => e.seq), [1, 2, 3, 4, 5]);
  assert.equal(events.map((e) => e.data.count), [1, 2, 3, 4, 5]);
  assert.is((host.find('c1', 'acct')!.snapshot as { context: { count: number } }).context.count, 5);
  assert.is(host.find('c1', 'someone-else'), undefined);
  await host.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a follower joining mid-stream gets history then live events with no gap or duplicate', async () => {
  const dir = tempDataDir();
  const { store, host } = open(dir);
  await host.spawn('counter', { id: 'c2', ownerId: 'acct', input: { start: 0 } });
  const burst = Array.from({ length: 50 }, () => host.send('c2', { type: 'INC' }));
  const seen: number[] = [];
  // Joins while commits are still landing.
  host.follow('c2', 0, { event: (e: LogEvent) => seen.push(e.seq), end: () => {} });
  await Promise.all(burst);
  for (let i = 0; i < 10; i++) await host.send('c2', { type: 'INC' });
  assert.equal(seen, Array.from({ length: 60 }, (_, i) => i + 1));
  await host.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

test('after a restart unfinished actors are rehydrated, keep their log position, and deadlines fire', async () => {
  const dir = tempDataDir();
  let { store, host } = open(dir);
  await host.spawn('counter', { id: 'c3', ownerId: 'acct', input: { start: 10 } });
  await host.send('c3', { type: 'INC' });
  await host.send('c3', { type: 'SLEEP', until: Date.now() + 150 });
  await host.close();
  await store.close();

  ({ store, host } = open(dir));
  assert.is(host.rehydrate(), 1);
  await host.send('c3', { type: 'INC' }); // ignored while sleeping
  const ended = new Promise<void>((resolve) => host.follow('c3', 1, { event: () => {}, end: resolve }));
  const keepAlive = setInterval(() => {}, 1000); // host timers are unref'd: a server keeps the loop alive, a test must
  await ended;
  clearInterval(keepAlive);
  const events = host.events('c3', 0, 100);
  assert.equal(events.map((e) => [e.seq, e.type]), [[1, 'counted'], [2, 'woke']]);
  assert.ok(host.find('c3', 'acct')!.done);
  assert.is(host.rehydrate(), 0, 'finished actors stay parked');
  await host.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

test('machine definitions export as JSON for visualisers', () => {
  const dir = tempDataDir();
  const { host } = open(dir);
  const json = JSON.parse(JSON.stringify(host.definitions())) as { counter: { states: Record<string, unknown> } };
  assert.equal(Object.keys(json.counter.states), ['counting', 'sleeping', 'woken']);
  rmSync(dir, { recursive: true, force: true });
});

test.run();
