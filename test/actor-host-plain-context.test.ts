import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assign, createActor, fromPromise, setup } from 'xstate';
import { persistPlainContext } from '../runtime/host/plain-context.js';

const test = suite('actor host: a machine with plain-data context persists the same snapshot without the walk');

const chat = setup({
  types: {
    context: {} as { items: { id: string; text: string; meta: { n: number } }[]; turn: { at: number } | null },
    events: {} as { type: 'SAY'; text: string } | { type: 'ASK' },
  },
  actors: { answer: fromPromise<string, { last: string }>(({ input }) => Promise.resolve(`re: ${input.last}`)) },
}).createMachine({
  context: { items: [], turn: null },
  initial: 'idle',
  states: {
    idle: {
      on: {
        SAY: {
          actions: assign({
            items: ({ context, event }) => [
              ...context.items,
              { id: `i${context.items.length}`, text: event.text, meta: { n: context.items.length } },
            ],
          }),
        },
        ASK: { target: 'answering', actions: assign({ turn: () => ({ at: 1 }) }) },
      },
    },
    answering: {
      invoke: {
        src: 'answer',
        input: ({ context }) => ({ last: context.items.at(-1)?.text ?? '' }),
        onDone: { target: 'idle', actions: assign({ turn: () => null }) },
      },
    },
  },
});

test('persisted snapshots equal XState own, key order included, in every state', async () => {
  const plain = persistPlainContext(chat.provide({}));
  const actor = createActor(plain).start();
  const seen: string[] = [];
  const compare = () => {
    const snapshot = actor.getSnapshot();
    const mine = plain.getPersistedSnapshot(snapshot);
    const theirs = chat.getPersistedSnapshot(snapshot);
    assert.equal(mine, theirs);
    assert.is(JSON.stringify(mine), JSON.stringify(theirs));
    assert.is((mine as unknown as { context: unknown }).context, snapshot.context);
    seen.push(JSON.stringify((mine as unknown as { value: unknown }).value));
  };
  compare();
  for (const text of ['hello', 'more', 'again']) {
    actor.send({ type: 'SAY', text });
    compare();
    actor.send({ type: 'ASK' });
    compare(); // an invoked child in the snapshot
    await new Promise((resolve) => setTimeout(resolve, 0));
    compare();
  }
  assert.ok(seen.includes('"answering"') && seen.includes('"idle"'));
  // A rehydrated actor from the plain snapshot goes on as one from XState's.
  const restored = createActor(chat, { snapshot: plain.getPersistedSnapshot(actor.getSnapshot()) }).start();
  assert.equal(restored.getSnapshot().context, actor.getSnapshot().context);
});

test.run();
