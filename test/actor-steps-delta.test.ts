import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assign, setup } from 'xstate';
import { SimulatedClock } from '../runtime/clock.js';
import { ActorHost } from '../runtime/host/actor-host.js';
import type { ActorStep } from '../runtime/host/actor-steps.js';
import { encodeStep, fullStep, isDelta, KEYFRAME_EVERY, type StoredStep } from '../runtime/host/step-delta.js';
import { createLogger } from '../runtime/logger.js';
import { LmdbStore } from '../runtime/store/lmdb-store.js';
import { tablePackr } from '../runtime/store/table-packr.js';
import { tempDataDir } from './harness.js';

const test = suite('actor steps: the history stored as changes, read back as full steps');

interface Item {
  id: string;
  text: string;
}
type CallEvent =
  | { type: 'SAY'; text: string }
  | { type: 'TRUNCATE'; id: string; text: string }
  | { type: 'DELETE'; id: string }
  | { type: 'SETTINGS' };

/** A call's conversation as the realtime machine keeps it: appended turns, edited and deleted items. */
const call = setup({
  types: {
    context: {} as { items: Item[]; turns: number; settings: { voice: string; n: number }; last: string | null },
    events: {} as CallEvent,
  },
}).createMachine({
  context: { items: [], turns: 0, settings: { voice: 'alloy', n: 0 }, last: null },
  on: {
    SAY: {
      actions: assign(({ context, event }) => ({
        items: [...context.items, { id: `item_${context.turns}`, text: event.text }],
        turns: context.turns + 1,
        last: event.text,
      })),
    },
    TRUNCATE: {
      actions: assign({
        items: ({ context, event }) => context.items.map((i) => (i.id === event.id ? { ...i, text: event.text } : i)),
      }),
    },
    DELETE: { actions: assign({ items: ({ context, event }) => context.items.filter((i) => i.id !== event.id) }) },
    SETTINGS: { actions: assign({ settings: ({ context }) => ({ ...context.settings, n: context.settings.n + 1 }) }) },
  },
});

function hostOn(store: LmdbStore, clock: SimulatedClock, seen: string[]): ActorHost {
  const host = new ActorHost(store, clock, createLogger('silent'), { history: true });
  host.register({ name: 'call', logic: call });
  // The full steps as committed, frozen as JSON when they land (key order included).
  host.observe((transition) => {
    if (transition.step) seen[transition.step.step - 1] = JSON.stringify(transition.step);
  });
  return host;
}

async function talk(host: ActorHost, clock: SimulatedClock, from: number, to: number): Promise<void> {
  for (let turn = from; turn < to; turn++) {
    clock.advance(20);
    await host.send('c1', { type: 'SAY', text: `turn ${turn}` });
    if (turn % 7 === 3) await host.send('c1', { type: 'TRUNCATE', id: `item_${turn - 2}`, text: 'cut' });
    if (turn % 11 === 5) await host.send('c1', { type: 'DELETE', id: `item_${turn - 4}` });
    if (turn % 13 === 0) await host.send('c1', { type: 'SETTINGS' });
  }
}

test('a long call with edits and a restart reads back every committed step, paged and by seq', async () => {
  const dir = tempDataDir();
  const clock = new SimulatedClock(1_000_000);
  const seen: string[] = [];
  let store = LmdbStore.open(dir);
  let host = hostOn(store, clock, seen);
  try {
    await host.spawn('call', { id: 'c1', ownerId: 'acct', input: {} });
    await talk(host, clock, 0, 60);
    const beforeRestart = host.find('c1', 'acct')!.steps!;
    await host.close();
    await store.close();
    store = LmdbStore.open(dir);
    host = hostOn(store, clock, seen);
    host.rehydrate();
    await talk(host, clock, 60, 130);
    // The spawn's step is committed before the observer could hear it.
    seen[0] = JSON.stringify(host.steps('c1', 0, 1)[0]);
    const all = host.steps('c1', 0, 10_000);
    assert.is(all.length, seen.length);
    assert.equal(
      all.map((step) => JSON.stringify(step)),
      seen,
    );
    for (const [after, limit] of [
      [0, 7],
      [5, 40],
      [31, 3],
      [beforeRestart - 1, 4],
      [seen.length - 2, 10],
    ] as const)
      assert.equal(
        host.steps('c1', after, limit).map((step) => JSON.stringify(step)),
        seen.slice(after, after + limit),
        `steps after ${after}`,
      );
    const steps = all.map((step) => JSON.parse(JSON.stringify(step)) as ActorStep);
    for (const seq of [1, 2, 40, 77, 129, 150]) {
      const expected = steps.find((step) => step.upToSeq >= seq);
      assert.is(JSON.stringify(host.stepAfterSeq('c1', seq)), JSON.stringify(expected), `after seq ${seq}`);
    }
    // As stored: full every KEYFRAME_EVERY steps and at the first step after the restart, changes between.
    const stored = [...store.table<StoredStep>('actor_steps').getRange({ start: ['c1', 0], end: ['c1', 1e9] })];
    const full = stored.filter(({ value }) => !isDelta(value)).map(({ value }) => value.step);
    assert.ok(full.includes(1) && full.includes(1 + KEYFRAME_EVERY), `keyframes ${full.join()}`);
    assert.ok(full.includes(beforeRestart + 1), `a keyframe after the restart (${full.join()})`);
    assert.ok(full.length < stored.length / 8, `${full.length} full of ${stored.length}`);
    const said = stored.find(({ value }) => isDelta(value) && value.cause === 'SAY' && value.step > 3)!
      .value as StoredStep & {
      delta: { grown?: Record<string, [number, unknown[]]> };
    };
    assert.is(said.delta.grown?.items?.[1].length, 1, 'a turn stores its new item only');
  } finally {
    await host.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('steps written full by the code before deltas still read, and deltas may follow them', async () => {
  const dir = tempDataDir();
  const store = LmdbStore.open(dir);
  const host = new ActorHost(store, new SimulatedClock(), createLogger('silent'), { history: true });
  try {
    const table = store.table<StoredStep>('actor_steps');
    const old = (step: number): ActorStep => ({
      step,
      ts: 1000 + step,
      cause: 'SAY',
      upToSeq: step - 1,
      status: 'active',
      value: {},
      context: { items: Array.from({ length: step }, (_, i) => ({ id: `i${i}` })), turns: step },
    });
    const last = old(3);
    const next: ActorStep = { ...old(4), context: { ...(last.context as object), turns: 4 } };
    await store.transaction(() => {
      for (const step of [old(1), old(2), last]) void table.put(['o1', step.step], step);
      void table.put(['o1', 4], encodeStep({ step: 3, context: last.context, keyframe: 3 }, next).stored);
    });
    assert.equal(host.steps('o1', 0, 10), [old(1), old(2), old(3), next]);
    assert.equal(host.steps('o1', 3, 10), [next]);
    assert.equal(host.stepAfterSeq('o1', 2), old(3));
    assert.equal(host.stepAfterSeq('o1', 3), next);
  } finally {
    await host.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** `step` as the table stores and decodes it. */
function roundTrip(stored: StoredStep): StoredStep {
  return tablePackr.unpack(tablePackr.pack(stored)) as StoredStep;
}

function stepOf(step: number, context: unknown): ActorStep {
  return { step, ts: step, cause: null, upToSeq: step, status: 'active', value: 'x', context };
}

test('a change keeps removed keys, key order, replaced prefixes and non-object contexts', () => {
  const shared = { id: 'a' };
  const contexts: unknown[] = [
    { a: 1, list: [shared, { id: 'b' }], gone: true },
    { list: [shared], a: 1, added: undefined },
    { list: [{ id: 'z' }], a: 2, added: 3 },
    [1, 2],
    { a: 1 },
    null,
  ];
  let base = null;
  let previous: ActorStep | undefined;
  for (const [i, context] of contexts.entries()) {
    const encoded = encodeStep(base, stepOf(i + 1, context));
    base = encoded.base;
    const stored = roundTrip(encoded.stored);
    if (i === 1 || i === 2) assert.ok(isDelta(stored), `step ${i + 1} is a change`);
    previous = fullStep(previous, stored);
    assert.is(JSON.stringify(previous), JSON.stringify(stepOf(i + 1, context)), `step ${i + 1}`);
    assert.equal(Object.keys(previous!.context ?? {}), Object.keys(context ?? {}));
  }
  // A change whose previous step is missing cannot be rebuilt.
  const gap = encodeStep({ step: 1, context: { a: 1 }, keyframe: 1 }, stepOf(2, { a: 2 })).stored;
  assert.is(fullStep(undefined, gap), undefined);
  assert.is(fullStep(stepOf(5, { a: 1 }), gap), undefined);
});

test.run();
