import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { receiveMultipartFile, type BodyStream } from '../actors/files/receive-multipart.js';
import { BlobStore } from '../runtime/blobs/blob-store.js';
import { tempDataDir } from './harness.js';

const test = suite('files: a multipart body cut off by a disconnect leaves nothing on disk');
const BOUNDARY = 'svc-disconnect-boundary';
const head = (data: string) =>
  Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="left.txt"\r\n\r\n${data}`);

let dataDir: string;
let blobs: BlobStore;

test.before.each(() => {
  dataDir = tempDataDir();
  blobs = new BlobStore(dataDir);
  blobs.openSync();
});

test.after.each(() => rmSync(dataDir, { recursive: true, force: true }));

/** A body whose client goes away right after `chunk`: the rejection comes while the sink's write (opening the file) is still pending, as the exchange does on abort. */
function cutOffAfter(chunk: Buffer): BodyStream {
  return {
    contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    pipeBody(sink) {
      void sink(chunk);
      return Promise.reject(new Error('client disconnected'));
    },
  };
}

test('a disconnect while the file part is being opened rejects and deletes the temporary file (regression)', async () => {
  for (const data of ['', 'x'.repeat(5000), 'y'.repeat(400_000)]) {
    try {
      await receiveMultipartFile(cutOffAfter(head(data)), blobs, 1024 * 1024);
      assert.unreachable('the body was cut off');
    } catch (err) {
      assert.instance(err, Error);
      assert.is((err as Error).message, 'client disconnected');
    }
    assert.equal(readdirSync(join(dataDir, 'files', 'tmp')), [], `${data.length} bytes in: no temporary file left`);
  }
});

test.run();
