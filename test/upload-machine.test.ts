import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor, fromPromise, waitFor } from 'xstate';
import {
  expectedPartBytes,
  missingParts,
  uploadMachine,
  type AssembleInput,
  type UploadInput,
} from '../actors/uploads/upload-machine.js';

const test = suite('upload machine: reserve, parts, assemble, cancel, expire');

const MiB = 1024 * 1024;
const input: UploadInput = {
  id: 'upload_t',
  accountId: 'acct_t',
  fileId: 'file-t',
  filename: 'big.bin',
  purpose: 'assistants',
  bytes: 20 * MiB,
  partBytes: 8 * MiB,
  at: 1000,
  ttlMs: 60_000,
};

/** An upload whose disk steps are scripted; records what it was asked to do. */
function start(options: { assemble?: (input: AssembleInput) => Promise<{ fileId: string }> } = {}) {
  const calls: string[] = [];
  const machine = uploadMachine.provide({
    actors: {
      assemble: fromPromise<{ fileId: string }, AssembleInput>(({ input }) => {
        calls.push(`assemble:${input.partCount}`);
        return options.assemble ? options.assemble(input) : Promise.resolve({ fileId: input.fileId });
      }),
      discard: fromPromise<void, { uploadId: string }>(({ input }) => {
        calls.push(`discard:${input.uploadId}`);
        return Promise.resolve();
      }),
    },
  });
  const emitted: string[] = [];
  const actor = createActor(machine, { input });
  actor.on('*', (event) => emitted.push(event.type));
  return { actor: actor.start(), calls, emitted };
}

/** Resolves once the upload has left its disk steps (assembling, discarding): no sleeping, no timers. */
const settle = (actor: ReturnType<typeof start>['actor']) =>
  waitFor(actor, (snapshot) => !['assembling', 'cancelling', 'expiring'].includes(snapshot.value));
const part = (n: number, at = 2000) => ({
  type: 'PART' as const,
  n,
  bytes: expectedPartBytes(input, n),
  sha256: `sha${n}`,
  at,
});

test('part sizes: every part is 8 MiB but the last, which takes the rest', () => {
  assert.equal(
    [0, 1, 2].map((n) => expectedPartBytes(input, n)),
    [8 * MiB, 8 * MiB, 4 * MiB],
  );
  assert.is(Math.ceil(input.bytes / input.partBytes), 3);
});

test('a reservation expects its parts and sets an expiry deadline', () => {
  const { actor } = start();
  const snapshot = actor.getSnapshot();
  assert.is(snapshot.value, 'reserved');
  assert.is(snapshot.context.partCount, 3);
  assert.equal(missingParts(snapshot.context), [0, 1, 2]);
  assert.is(snapshot.context.deadlines.expires, 1000 + 60_000);
});

test('parts in any order, re-sent parts replace, and each pushes the deadline', () => {
  const { actor, emitted } = start();
  actor.send(part(2, 5000));
  assert.is(actor.getSnapshot().value, 'receiving');
  actor.send({ ...part(0, 6000), sha256: 'first' });
  actor.send({ ...part(0, 7000), sha256: 'second' });
  const { context } = actor.getSnapshot();
  assert.equal(missingParts(context), [1]);
  assert.is(context.parts[0]!.sha256, 'second');
  assert.is(context.deadlines.expires, 7000 + 60_000);
  assert.equal(emitted.filter((type) => type === 'part_received').length, 3);
});

test('a part of the wrong size or number is refused by the machine', () => {
  const { actor } = start();
  actor.send({ ...part(0), bytes: 100 });
  actor.send({ ...part(1), n: 3 });
  actor.send({ ...part(1), n: -1 });
  assert.is(actor.getSnapshot().value, 'reserved');
  assert.equal(actor.getSnapshot().context.parts, {});
});

test('complete is refused while parts are missing', () => {
  const { actor, calls } = start();
  actor.send(part(0));
  actor.send({ type: 'COMPLETE', at: 3000 });
  assert.is(actor.getSnapshot().value, 'receiving');
  assert.equal(calls, []);
});

test('complete with every part assembles and finishes completed', async () => {
  const { actor, calls, emitted } = start();
  for (const n of [0, 1, 2]) actor.send(part(n));
  actor.send({ type: 'COMPLETE', at: 3000 });
  assert.is(actor.getSnapshot().value, 'assembling');
  assert.equal(actor.getSnapshot().context.deadlines, {}, 'no expiry while assembling');
  await settle(actor);
  assert.is(actor.getSnapshot().value, 'completed');
  assert.is(actor.getSnapshot().status, 'done');
  assert.equal(calls, ['assemble:3']);
  assert.ok(emitted.includes('completed'));
});

test("assembly is handed each part's recorded sha256, a re-sent part's latest", async () => {
  let handed: AssembleInput | null = null;
  const { actor } = start({ assemble: (i) => ((handed = i), Promise.resolve({ fileId: i.fileId })) });
  for (const n of [2, 0, 1]) actor.send(part(n));
  actor.send({ ...part(0), sha256: 'again' });
  actor.send({ type: 'COMPLETE', at: 3000 });
  await settle(actor);
  assert.equal(handed!.partSha256, ['again', 'sha1', 'sha2']);
});

test('parts found damaged during assembly are forgotten and the upload takes parts again', async () => {
  const failure = { code: 'parts_missing' as const, message: 'part 1 damaged', parts: [1] };
  const { actor, emitted } = start({
    assemble: () => Promise.reject(Object.assign(new Error('damaged'), { failure })),
  });
  for (const n of [0, 1, 2]) actor.send(part(n));
  actor.send({ type: 'COMPLETE', at: 3000 });
  await settle(actor);
  const snapshot = actor.getSnapshot();
  assert.is(snapshot.value, 'receiving');
  assert.equal(missingParts(snapshot.context), [1]);
  assert.equal(snapshot.context.lastError, failure);
  assert.ok(emitted.includes('assembly_failed'));
  assert.is(snapshot.context.deadlines.expires, 3000 + 60_000, 'the expiry is armed again');
});

test('cancel discards the parts and ends cancelled; nothing is taken afterwards', async () => {
  const { actor, calls } = start();
  actor.send(part(0));
  actor.send({ type: 'CANCEL', at: 4000 });
  assert.is(actor.getSnapshot().value, 'cancelling');
  await settle(actor);
  assert.is(actor.getSnapshot().value, 'cancelled');
  assert.equal(calls, ['discard:upload_t']);
});

test('the expiry timer discards the parts and ends expired; other timers are ignored', async () => {
  const { actor, calls } = start();
  actor.send({ type: 'TIMER', name: 'something-else' });
  assert.is(actor.getSnapshot().value, 'reserved');
  actor.send({ type: 'TIMER', name: 'expires' });
  await settle(actor);
  assert.is(actor.getSnapshot().value, 'expired');
  assert.equal(calls, ['discard:upload_t']);
});

test('cancel is not taken while assembling', async () => {
  let finish: () => void = () => {};
  const { actor } = start({
    assemble: (i) => new Promise((resolve) => (finish = () => resolve({ fileId: i.fileId }))),
  });
  for (const n of [0, 1, 2]) actor.send(part(n));
  actor.send({ type: 'COMPLETE', at: 3000 });
  assert.not.ok(actor.getSnapshot().can({ type: 'CANCEL', at: 3001 }));
  finish();
  await settle(actor);
  assert.is(actor.getSnapshot().value, 'completed');
});

test.run();
