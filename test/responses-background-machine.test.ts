import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor, fromPromise, waitFor } from 'xstate';
import {
  backgroundResponseMachine,
  type BackgroundInput,
  type BackgroundOutcome,
  type CancelInput,
} from '../actors/responses/background-machine.js';

const test = suite('responses: the background machine ends a cancel with a stored answer, after a restart too');

const INPUT: BackgroundInput = {
  id: 'resp_machine_1',
  accountId: 'acct_1',
  tokenId: null,
  model: 'pro-1',
  createdAt: 1_700_000_000,
  request: { model: 'pro-1', input: 'hello', store: true, background: true } as BackgroundInput['request'],
};

/** The machine with a run that never ends by itself and a cancel step that records what it was given. */
function machineWith(settled: CancelInput[]) {
  return backgroundResponseMachine.provide({
    actors: {
      runResponse: fromPromise<BackgroundOutcome, BackgroundInput>(({ signal }) => {
        return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
      }),
      settleCancel: fromPromise<void, CancelInput>(({ input }) => {
        settled.push(input);
        return Promise.resolve();
      }),
    },
  });
}

test('CANCEL goes through cancelling, which settles the response before the machine ends', async () => {
  const settled: CancelInput[] = [];
  const actor = createActor(machineWith(settled), { input: INPUT }).start();
  actor.send({ type: 'CANCEL', reason: 'cancelled by request' });
  await waitFor(actor, (s) => s.status === 'done');
  assert.is(actor.getSnapshot().value, 'cancelled');
  assert.equal(
    settled.map((s) => [s.id, s.accountId, s.reason]),
    [['resp_machine_1', 'acct_1', 'cancelled by request']],
  );
});

test('a snapshot persisted in cancelling (killed before the cancelled answer was stored) settles it on restore', async () => {
  // The first life: the cancel recorded, its settle step never finishing (the process dies here).
  const first = createActor(
    backgroundResponseMachine.provide({
      actors: {
        runResponse: fromPromise<BackgroundOutcome, BackgroundInput>(() => new Promise(() => {})),
        settleCancel: fromPromise<void, CancelInput>(() => new Promise(() => {})),
      },
    }),
    { input: INPUT },
  ).start();
  first.send({ type: 'CANCEL', reason: 'cancelled by request' });
  assert.is(first.getSnapshot().value, 'cancelling');
  const persisted = first.getPersistedSnapshot();
  first.stop();

  // The restart: the same machine restored from what was persisted runs the settle step again.
  const settled: CancelInput[] = [];
  const restored = createActor(machineWith(settled), { input: INPUT, snapshot: persisted }).start();
  await waitFor(restored, (s) => s.status === 'done');
  assert.is(restored.getSnapshot().value, 'cancelled');
  assert.is(settled.length, 1);
  assert.is(settled[0]!.reason, 'cancelled by request');
});

test.run();
