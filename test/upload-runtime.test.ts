import { createHash } from 'node:crypto';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor, fromPromise, waitFor, type Snapshot } from 'xstate';
import { FileLibrary } from '../actors/files/file-library.js';
import { uploadMachine, type AssembleInput, type UploadInput } from '../actors/uploads/upload-machine.js';
import { UploadRuntime } from '../actors/uploads/upload-runtime.js';
import type { TextExtractor } from '../backends/text-extraction/text-extractor.js';
import { BlobStore } from '../runtime/blobs/blob-store.js';
import { SimulatedClock } from '../runtime/clock.js';
import { createLogger } from '../runtime/logger.js';
import { MemoryStore } from '../runtime/store/memory-store.js';
import { tempDataDir } from './harness.js';

const test = suite('upload runtime: assembly checks every part against the digest it was acknowledged with');

const input: UploadInput = {
  id: 'upload_rt',
  accountId: 'acct_rt',
  fileId: 'file-rt',
  filename: 'parts.bin',
  purpose: 'assistants',
  bytes: 10,
  partBytes: 4,
  at: 1000,
  ttlMs: 60_000,
};
const parts = [Buffer.from('abcd'), Buffer.from('efgh'), Buffer.from('ij')];
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const noText: TextExtractor = {
  extract: () => Promise.resolve({ status: 'unsupported', reason: 'not in this test' }),
  close: () => Promise.resolve(),
};

let dataDir: string;
let blobs: BlobStore;
let library: FileLibrary;

test.before.each(() => {
  dataDir = tempDataDir();
  blobs = new BlobStore(dataDir);
  blobs.openSync();
  library = new FileLibrary(new MemoryStore(), blobs, noText, new SimulatedClock(), createLogger('silent'));
});

test.after.each(() => rmSync(dataDir, { recursive: true, force: true }));

/** Writes part `n` to its place on disk, as a committed PUT does. */
async function writePart(n: number, bytes: Buffer): Promise<void> {
  await blobs.writeWhole(blobs.partPath(input.id, n), bytes);
}

/** Puts every part on disk and records it in a fresh upload actor; returns the started actor. */
async function received(logic = new UploadRuntime(library).hosted().logic) {
  const actor = createActor(logic, { input }).start();
  for (const [n, bytes] of parts.entries()) {
    await writePart(n, bytes);
    actor.send({ type: 'PART', n, bytes: bytes.length, sha256: sha256(bytes), at: 2000 });
  }
  return actor;
}

/** A persisted upload snapshot, as far as this test reads it: its state and the assembly's input. */
type PersistedAssembly = Snapshot<unknown> & {
  value: unknown;
  children: Record<string, { snapshot: { input: AssembleInput } }>;
};

const settled = (snapshot: Snapshot<unknown> & { value?: unknown }) => snapshot.value !== 'assembling';
const tmpFiles = () => readdirSync(join(dataDir, 'files', 'tmp'));

test('a part changed on disk after it was acknowledged fails with parts_missing, is forgotten and deleted; nothing is saved', async () => {
  const actor = await received();
  writeFileSync(blobs.partPath(input.id, 1), 'EFGH'); // the right size: only the digest tells
  actor.send({ type: 'COMPLETE', at: 3000 });
  await waitFor(actor, settled);
  const { value, context } = actor.getSnapshot();
  assert.is(value, 'receiving');
  assert.is(context.lastError?.code, 'parts_missing');
  assert.equal(context.lastError?.parts, [1]);
  assert.equal(Object.keys(context.parts), ['0', '2'], 'part 1 is forgotten');
  assert.is(await blobs.partSize(input.id, 1), null, 'the changed bytes are deleted');
  assert.is(library.repo.get(input.accountId, input.fileId), undefined, 'no file was saved');
  assert.equal(tmpFiles(), []);

  await writePart(1, parts[1]!);
  actor.send({ type: 'PART', n: 1, bytes: 4, sha256: sha256(parts[1]!), at: 4000 });
  actor.send({ type: 'COMPLETE', at: 5000 });
  await waitFor(actor, settled);
  assert.is(actor.getSnapshot().value, 'completed');
  assert.is(library.repo.get(input.accountId, input.fileId)?.sha256, sha256(Buffer.concat(parts)));
});

test('an assembly persisted by older code, without digests, completes after a restart, unchecked', async () => {
  // Park the upload in `assembling` with an assembly that never ends, as a crash would leave it.
  const stuck = uploadMachine.provide({
    actors: { assemble: fromPromise<{ fileId: string }, AssembleInput>(() => new Promise(() => {})) },
  });
  const before = await received(stuck);
  before.send({ type: 'COMPLETE', at: 3000 });
  // As the host stores it: plain data, read back.
  const persisted = JSON.parse(JSON.stringify(before.getPersistedSnapshot())) as PersistedAssembly;
  before.stop();
  assert.is(persisted.value, 'assembling');
  const assembly = Object.values(persisted.children)[0]!.snapshot;
  assert.equal(assembly.input.partSha256, parts.map(sha256), 'new snapshots carry the digests');
  delete assembly.input.partSha256;
  // With no digest to compare with, the part is taken as it is on disk (what older code did).
  const changed = Buffer.from('EFGH');
  writeFileSync(blobs.partPath(input.id, 1), changed);

  const after = createActor(new UploadRuntime(library).hosted().logic, { snapshot: persisted, input }).start();
  await waitFor(after, settled);
  assert.is(after.getSnapshot().value, 'completed');
  assert.is(
    library.repo.get(input.accountId, input.fileId)?.sha256,
    sha256(Buffer.concat([parts[0]!, changed, parts[2]!])),
  );
});

test.run();
