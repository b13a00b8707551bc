import { createHash } from 'node:crypto';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SimulatedClock } from '../runtime/clock.js';
import { untilDir } from './dir-watch.js';
import { startServer, type TestAccount, type TestServer } from './harness.js';

const MiB = 1024 * 1024;
const PART = 8 * MiB;

let server: TestServer;
let account: TestAccount;

interface UploadObject {
  id: string;
  object: string;
  status: string;
  filename: string;
  purpose: string;
  bytes: number;
  part_bytes: number;
  part_count: number;
  received_parts: number[];
  missing_parts: number[];
  received_bytes: number;
  expires_at: number | null;
  error: { code: string; message: string } | null;
  file: Record<string, unknown> | null;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** `length` deterministic pseudo-random bytes (xorshift32 from `seed`). */
function pseudoRandom(length: number, seed: number): Buffer {
  const out = Buffer.alloc(length);
  let state = seed >>> 0 || 1;
  let i = 0;
  for (; i + 4 <= length; i += 4) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out.writeUInt32LE(state >>> 0, i);
  }
  for (; i < length; i++) out[i] = (state >>> (8 * (i % 4))) & 0xff;
  return out;
}

async function reserve(
  owner: TestAccount,
  bytes: number,
  filename = 'upload.bin',
  extra: Record<string, unknown> = {},
): Promise<UploadObject> {
  const res = await server.request('POST', '/v1/files/uploads', {
    token: owner.token,
    body: { filename, bytes, ...extra },
  });
  assert.is(res.status, 200, JSON.stringify(res.body));
  return res.body as UploadObject;
}

async function status(owner: TestAccount, id: string, on = server): Promise<UploadObject> {
  const res = await on.request('GET', `/v1/files/uploads/${id}`, { token: owner.token });
  assert.is(res.status, 200, JSON.stringify(res.body));
  return res.body as UploadObject;
}

function putPart(
  owner: TestAccount,
  id: string,
  n: number | string,
  body: Buffer | string,
  headers: Record<string, string> = {},
  on = server,
) {
  return on.request('PUT', `/v1/files/uploads/${id}/parts/${n}`, {
    token: owner.token,
    raw: body,
    headers: { 'content-type': 'application/octet-stream', ...headers },
  });
}

/** A part sent with chunked transfer encoding, so the server learns its size only from the body. */
async function putChunked(owner: TestAccount, id: string, n: number, body: Buffer) {
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let at = 0; at < body.length; at += 4096) controller.enqueue(body.subarray(at, at + 4096));
      controller.close();
    },
  });
  const res = await fetch(`${server.url}/v1/files/uploads/${id}/parts/${n}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/octet-stream' },
    body: stream,
    duplex: 'half',
  });
  return { status: res.status, body: await res.json() };
}

function complete(owner: TestAccount, id: string, on = server) {
  return on.request('POST', `/v1/files/uploads/${id}/complete`, { token: owner.token });
}

function cancel(owner: TestAccount, id: string) {
  return server.request('DELETE', `/v1/files/uploads/${id}`, { token: owner.token });
}

function uploadDir(id: string, on = server): string {
  return join(on.dataDir, 'files', 'uploads', id);
}

function tmpDir(on = server): string {
  return join(on.dataDir, 'files', 'tmp');
}

function tmpFiles(on = server): string[] {
  return readdirSync(tmpDir(on));
}

function assertCode(res: { status: number; body: any }, status: number, code: string, what = ''): void {
  assert.is(res.status, status, `${what} ${JSON.stringify(res.body)}`);
  assert.is(res.body.error.code, code, what);
}

function assertInvalid(res: { status: number; body: any }, loc: (string | number)[], what = ''): void {
  assertCode(res, 422, 'validation_error', what);
  assert.equal(res.body.detail[0].loc, loc, what);
}

/** An upload of 8 MiB + `tail` bytes (two parts), reserved for `owner`. */
const twoParts = (owner: TestAccount, tail = 10) => reserve(owner, PART + tail, 'two.bin');

const test = suite('file uploads: resumable uploads in 8 MiB parts');

test.before(async () => {
  server = await startServer();
  account = await server.account();
});

test.after(async () => {
  await server.close();
});

test('a three-part upload sent out of order, with a part re-sent, completes into the exact bytes', async () => {
  const source = pseudoRandom(2 * PART + MiB + 123, 0x5eed);
  const parts = [source.subarray(0, PART), source.subarray(PART, 2 * PART), source.subarray(2 * PART)];
  const upload = await reserve(account, source.length, 'big.bin');
  assert.match(upload.id, /^upload_/);
  assert.is(upload.object, 'upload');
  assert.is(upload.status, 'reserved');
  assert.is(upload.filename, 'big.bin');
  assert.is(upload.purpose, 'assistants');
  assert.is(upload.bytes, source.length);
  assert.is(upload.part_bytes, 8388608);
  assert.is(upload.part_count, 3);
  assert.equal(upload.received_parts, []);
  assert.equal(upload.missing_parts, [0, 1, 2]);
  assert.is(upload.received_bytes, 0);
  assert.type(upload.expires_at, 'number');
  assert.ok(upload.expires_at! > Date.now() / 1000);
  assert.is(upload.error, null);
  assert.is(upload.file, null);

  const expected: [number, number[], number[]][] = [
    [2, [2], [0, 1]],
    [0, [0, 2], [1]],
    [1, [0, 1, 2], []],
  ];
  let receivedBytes = 0;
  for (const [n, received, missing] of expected) {
    const res = await putPart(account, upload.id, n, parts[n]!);
    assert.is(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body, {
      object: 'upload.part',
      upload_id: upload.id,
      part_number: n,
      bytes: parts[n]!.length,
      sha256: sha256(parts[n]!),
      received_parts: received.length,
      missing_parts: missing.length,
    });
    receivedBytes += parts[n]!.length;
    const now = await status(account, upload.id);
    assert.is(now.status, 'receiving');
    assert.equal(now.received_parts, received);
    assert.equal(now.missing_parts, missing);
    assert.is(now.received_bytes, receivedBytes);
    assert.ok(existsSync(join(uploadDir(upload.id), String(n))), `part ${n} is on disk`);
  }

  // Re-sending part 0 with other bytes replaces it; sending the right bytes again restores it.
  const wrong = pseudoRandom(PART, 0xbad);
  const replaced = await putPart(account, upload.id, 0, wrong);
  assert.is(replaced.status, 200);
  assert.is(replaced.body.sha256, sha256(wrong));
  assert.is(replaced.body.received_parts, 3);
  const restored = await putPart(account, upload.id, 0, parts[0]!);
  assert.is(restored.body.sha256, sha256(parts[0]!));
  assert.equal((await status(account, upload.id)).received_parts, [0, 1, 2]);

  const done = await complete(account, upload.id);
  assert.is(done.status, 200, JSON.stringify(done.body));
  assert.match(done.body.id, /^file-/);
  assert.is(done.body.object, 'file');
  assert.is(done.body.upload_id, upload.id);
  assert.is(done.body.bytes, source.length);
  assert.is(done.body.filename, 'big.bin');
  assert.is(done.body.sha256, sha256(source));
  assert.is(done.body.status, 'processed');

  const content = await fetch(`${server.url}/v1/files/${done.body.id}/content`, {
    headers: { authorization: `Bearer ${account.token}` },
  });
  assert.is(content.status, 200);
  assert.is(content.headers.get('content-length'), String(source.length));
  assert.is(content.headers.get('x-content-sha256'), sha256(source));
  assert.ok(Buffer.from(await content.arrayBuffer()).equals(source), 'the download is the source, byte for byte');

  assert.not.ok(existsSync(uploadDir(upload.id)), 'the parts directory is gone');
  assert.equal(tmpFiles(), []);
  const after = await status(account, upload.id);
  assert.is(after.status, 'completed');
  assert.is(after.file?.id, done.body.id);
  const listed = await server.request('GET', '/v1/files', { token: account.token });
  assert.ok(listed.body.data.some((file: { id: string }) => file.id === done.body.id));
});

test('completing a completed upload again returns the same file; parts, cancel and deletion after it are refused', async () => {
  const upload = await reserve(account, 5, 'tiny.txt', { purpose: 'user_data' });
  assert.is(upload.part_count, 1);
  assert.is((await putPart(account, upload.id, 0, 'hello')).status, 200);
  const first = await complete(account, upload.id);
  assert.is(first.status, 200);
  assert.is(first.body.purpose, 'user_data');
  assert.is(first.body.extraction.status, 'extracted');
  const second = await complete(account, upload.id);
  assert.is(second.status, 200);
  assert.equal(second.body, first.body);

  const part = await putPart(account, upload.id, 0, 'hello');
  assertCode(part, 409, 'upload_closed', 'part after completion');
  assert.is(part.headers.get('x-should-retry'), 'false');
  assertCode(await cancel(account, upload.id), 409, 'upload_closed', 'cancel after completion');
  assert.is((await status(account, upload.id)).status, 'completed');

  // Deleting the file it became: the upload still says completed, and completing it again is a 404.
  assert.is((await server.request('DELETE', `/v1/files/${first.body.id}`, { token: account.token })).status, 200);
  assertCode(await complete(account, upload.id), 404, 'not_found', 'complete after the file was deleted');
});

test('completing with parts missing is 409 upload_incomplete and the upload stays open', async () => {
  const upload = await twoParts(account);
  assertCode(await complete(account, upload.id), 409, 'upload_incomplete', 'no parts');
  assert.is((await putPart(account, upload.id, 1, Buffer.alloc(10, 1))).status, 200);
  const res = await complete(account, upload.id);
  assertCode(res, 409, 'upload_incomplete', 'part 0 missing');
  assert.is(res.headers.get('x-should-retry'), 'false');
  assert.is(res.body.error.param, 'missing_parts');
  const now = await status(account, upload.id);
  assert.is(now.status, 'receiving');
  assert.equal(now.missing_parts, [0]);
  assert.is((await cancel(account, upload.id)).status, 200);
});

test('a part number out of range, negative or not an integer is 422 with detail loc path.part_number', async () => {
  const upload = await twoParts(account);
  for (const n of ['2', '3', '999999999', '-1', 'abc', '1.0', '1e0', '0x1', '10000000000']) {
    assertInvalid(await putPart(account, upload.id, n, Buffer.alloc(10)), ['path', 'part_number'], `part ${n}`);
  }
  assert.equal((await status(account, upload.id)).received_parts, []);
  assert.equal(tmpFiles(), []);
});

test('a part whose Content-Length is not the expected size is 422 with detail loc header.content-length', async () => {
  const upload = await twoParts(account, 10);
  assertInvalid(await putPart(account, upload.id, 1, Buffer.alloc(9)), ['header', 'content-length'], 'short last part');
  assertInvalid(await putPart(account, upload.id, 1, Buffer.alloc(11)), ['header', 'content-length'], 'long last part');
  assertInvalid(
    await putPart(account, upload.id, 0, Buffer.alloc(10)),
    ['header', 'content-length'],
    'short full part',
  );
  assertInvalid(await putPart(account, upload.id, 1, ''), ['header', 'content-length'], 'empty part');
  const now = await status(account, upload.id);
  assert.equal(now.received_parts, []);
  assert.is(now.status, 'reserved');
  assert.equal(tmpFiles(), []);
  assert.not.ok(existsSync(join(uploadDir(upload.id), '1')));
});

test('a chunked part body of the wrong size is 422 with detail loc body, and nothing is kept', async () => {
  const upload = await twoParts(account, 10_000);
  assertInvalid(await putChunked(account, upload.id, 1, Buffer.alloc(9_999, 2)), ['body'], 'one byte short');
  assertInvalid(await putChunked(account, upload.id, 1, Buffer.alloc(10_001, 2)), ['body'], 'one byte long');
  assertInvalid(await putChunked(account, upload.id, 1, Buffer.alloc(50_000, 2)), ['body'], 'far too long');
  assert.equal((await status(account, upload.id)).received_parts, []);
  assert.equal(tmpFiles(), []);
  assert.not.ok(existsSync(join(uploadDir(upload.id), '1')));
  const ok = await putChunked(account, upload.id, 1, Buffer.alloc(10_000, 2));
  assert.is(ok.status, 200, JSON.stringify(ok.body));
  assert.equal((await status(account, upload.id)).received_parts, [1]);
});

test('a part sent as multipart/form-data or JSON is 415 unsupported_media_type', async () => {
  const upload = await twoParts(account);
  for (const type of [
    'multipart/form-data; boundary=x',
    'application/json',
    'application/json; charset=utf-8',
    'Multipart/Mixed; boundary=y',
  ]) {
    assertCode(
      await putPart(account, upload.id, 1, Buffer.alloc(10), { 'content-type': type }),
      415,
      'unsupported_media_type',
      type,
    );
  }
  assert.equal((await status(account, upload.id)).received_parts, []);
});

test('reserving with bad bytes, filename or purpose is 422 with detail loc naming the field', async () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ filename: 'a.bin' }, 'bytes'],
    [{ filename: 'a.bin', bytes: 0 }, 'bytes'],
    [{ filename: 'a.bin', bytes: -5 }, 'bytes'],
    [{ filename: 'a.bin', bytes: 1.5 }, 'bytes'],
    [{ filename: 'a.bin', bytes: '100' }, 'bytes'],
    [{ filename: 'a.bin', bytes: 5 * 1024 ** 3 + 1 }, 'bytes'],
    [{ bytes: 100 }, 'filename'],
    [{ filename: '', bytes: 100 }, 'filename'],
    [{ filename: 'dir/', bytes: 100 }, 'filename'],
    [{ filename: 'nul\u0000.bin', bytes: 100 }, 'filename'],
    [{ filename: 'a.bin', bytes: 100, purpose: 'nonsense' }, 'purpose'],
  ];
  for (const [body, field] of cases) {
    const res = await server.request('POST', '/v1/files/uploads', { token: account.token, body });
    assertCode(res, 422, 'validation_error', JSON.stringify(body));
    assert.ok(
      res.body.detail.some((item: { loc: unknown[] }) => JSON.stringify(item.loc) === JSON.stringify(['body', field])),
      `${JSON.stringify(body)}: ${JSON.stringify(res.body.detail)}`,
    );
  }
  const form = await server.request('POST', '/v1/files/uploads', {
    token: account.token,
    raw: '--x--\r\n',
    headers: { 'content-type': 'multipart/form-data; boundary=x' },
  });
  assertCode(form, 415, 'unsupported_media_type');
  const broken = await server.request('POST', '/v1/files/uploads', {
    token: account.token,
    raw: '{"bytes":',
    headers: { 'content-type': 'application/json' },
  });
  assertCode(broken, 400, 'invalid_json');
});

test('cancelling deletes the parts from disk and ends cancelled; parts and completion afterwards are 409 upload_closed', async () => {
  const upload = await twoParts(account);
  assert.is((await putPart(account, upload.id, 1, Buffer.alloc(10, 3))).status, 200);
  assert.ok(existsSync(join(uploadDir(upload.id), '1')));
  const res = await cancel(account, upload.id);
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.id, upload.id);
  assert.is(res.body.status, 'cancelled');
  assert.not.ok(existsSync(uploadDir(upload.id)), 'the parts directory is gone');
  assert.is((await status(account, upload.id)).status, 'cancelled');
  const part = await putPart(account, upload.id, 0, Buffer.alloc(PART));
  assertCode(part, 409, 'upload_closed', 'part after cancel');
  assert.is(part.headers.get('x-should-retry'), 'false');
  assertCode(await complete(account, upload.id), 409, 'upload_closed', 'complete after cancel');
  assert.not.ok(existsSync(uploadDir(upload.id)), 'a refused part wrote nothing');
  assert.equal(tmpFiles(), []);
  const again = await cancel(account, upload.id);
  assert.is(again.status, 200);
  assert.is(again.body.status, 'cancelled');
});

test('a cancel racing a completion either cancels the upload or is 409 upload_closed, never a 200 for a completed one', async () => {
  for (let round = 0; round < 5; round++) {
    const upload = await reserve(account, 5, 'race.txt');
    assert.is((await putPart(account, upload.id, 0, 'abcde')).status, 200);
    const [done, cancelled] = await Promise.all([complete(account, upload.id), cancel(account, upload.id)]);
    const final = await status(account, upload.id);
    if (final.status === 'completed') {
      assert.is(done.status, 200, JSON.stringify(done.body));
      assertCode(cancelled, 409, 'upload_closed', 'the cancel lost');
      assert.is((await server.request('DELETE', `/v1/files/${done.body.id}`, { token: account.token })).status, 200);
    } else {
      assert.is(final.status, 'cancelled');
      assert.is(cancelled.status, 200, JSON.stringify(cancelled.body));
      assert.is(cancelled.body.status, 'cancelled');
      assertCode(done, 409, 'upload_closed', 'the completion lost');
    }
    assert.not.ok(existsSync(uploadDir(upload.id)));
  }
});

test('a cancel racing a completion whose assembly fails still cancels instead of waiting for the expiry', async () => {
  // Regression: the cancel was ignored while assembling, then waited for an end that only expiry brings.
  for (let round = 0; round < 3; round++) {
    const upload = await reserve(account, 5, 'damaged.txt');
    assert.is((await putPart(account, upload.id, 0, 'abcde')).status, 200);
    rmSync(join(uploadDir(upload.id), '0')); // the part is lost on the server: assembly will fail
    const completed = complete(account, upload.id);
    const cancelled = fetch(`${server.url}/v1/files/uploads/${upload.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${account.token}` },
      signal: AbortSignal.timeout(5000),
    });
    const [done, res] = await Promise.all([completed, cancelled]);
    assert.is(res.status, 200);
    assert.is(((await res.json()) as UploadObject).status, 'cancelled');
    assert.is(done.status, 409, JSON.stringify(done.body));
    assert.ok(['upload_incomplete', 'upload_closed'].includes(done.body.error.code), done.body.error.code);
    assert.is((await status(account, upload.id)).status, 'cancelled');
    assert.not.ok(existsSync(uploadDir(upload.id)));
  }
});

test('a part lost on the server is reported by complete and taken again', async () => {
  const upload = await reserve(account, 5, 'lost.txt');
  assert.is((await putPart(account, upload.id, 0, 'abcde')).status, 200);
  rmSync(join(uploadDir(upload.id), '0'));
  const res = await complete(account, upload.id);
  assertCode(res, 409, 'upload_incomplete');
  const now = await status(account, upload.id);
  assert.is(now.status, 'receiving');
  assert.equal(now.missing_parts, [0]);
  assert.is(now.error?.code, 'parts_missing');
  assert.is((await putPart(account, upload.id, 0, 'abcde')).status, 200);
  const done = await complete(account, upload.id);
  assert.is(done.status, 200, JSON.stringify(done.body));
  assert.is(done.body.sha256, sha256(Buffer.from('abcde')));
  assert.is((await status(account, upload.id)).error, null);
});

test('a part changed on the server after it was acknowledged fails completion with parts_missing and is taken again', async () => {
  // Issue 24: assembly took whatever bytes sat at a part's path; it now checks each part against the SHA-256 acknowledged.
  const source = pseudoRandom(PART + 10, 0xd19e57);
  const upload = await twoParts(account);
  assert.is((await putPart(account, upload.id, 0, source.subarray(0, PART))).status, 200);
  assert.is((await putPart(account, upload.id, 1, source.subarray(PART))).status, 200);
  const listed = (await server.request('GET', '/v1/files?limit=10000', { token: account.token })).body.data
    .length as number;
  writeFileSync(join(uploadDir(upload.id), '1'), Buffer.alloc(10, 0x21)); // the right size: only the digest tells
  assertCode(await complete(account, upload.id), 409, 'upload_incomplete');
  const now = await status(account, upload.id);
  assert.is(now.status, 'receiving');
  assert.equal(now.received_parts, [0]);
  assert.equal(now.missing_parts, [1]);
  assert.is(now.error?.code, 'parts_missing');
  assert.not.ok(existsSync(join(uploadDir(upload.id), '1')), 'the changed bytes are deleted');
  assert.equal(tmpFiles(), [], 'the assembled bytes are dropped');
  assert.is(
    (await server.request('GET', '/v1/files?limit=10000', { token: account.token })).body.data.length,
    listed,
    'no file was saved',
  );
  assert.is((await putPart(account, upload.id, 1, source.subarray(PART))).status, 200);
  const done = await complete(account, upload.id);
  assert.is(done.status, 200, JSON.stringify(done.body));
  assert.is(done.body.sha256, sha256(source));
});

test('an unknown upload id is 404 on every upload route', async () => {
  const id = 'upload_doesnotexist';
  assertCode(await server.request('GET', `/v1/files/uploads/${id}`, { token: account.token }), 404, 'not_found', 'get');
  assertCode(await putPart(account, id, 0, Buffer.alloc(1)), 404, 'not_found', 'put');
  assertCode(await complete(account, id), 404, 'not_found', 'complete');
  assertCode(await cancel(account, id), 404, 'not_found', 'cancel');
});

test("another account's upload is 404 on every upload route and is left untouched", async () => {
  const other = await server.account();
  const upload = await twoParts(account);
  assert.is((await putPart(account, upload.id, 1, Buffer.alloc(10, 4))).status, 200);
  assertCode(
    await server.request('GET', `/v1/files/uploads/${upload.id}`, { token: other.token }),
    404,
    'not_found',
    'get',
  );
  assertCode(await putPart(other, upload.id, 1, Buffer.alloc(10, 5)), 404, 'not_found', 'put');
  assertCode(await complete(other, upload.id), 404, 'not_found', 'complete');
  assertCode(await cancel(other, upload.id), 404, 'not_found', 'cancel');
  const now = await status(account, upload.id);
  assert.is(now.status, 'receiving');
  assert.equal(now.received_parts, [1]);
  assert.is((await cancel(account, upload.id)).status, 200);
});

test('every upload route without a token is 401', async () => {
  const upload = await twoParts(account);
  const routes: [string, string, string | undefined][] = [
    ['POST', '/v1/files/uploads', '{"filename":"a","bytes":1}'],
    ['GET', `/v1/files/uploads/${upload.id}`, undefined],
    ['PUT', `/v1/files/uploads/${upload.id}/parts/1`, '0123456789'],
    ['POST', `/v1/files/uploads/${upload.id}/complete`, undefined],
    ['DELETE', `/v1/files/uploads/${upload.id}`, undefined],
  ];
  for (const [method, path, raw] of routes) {
    const res = await server.request(method, path, {
      ...(raw !== undefined && { raw }),
      headers: raw?.startsWith('{') ? { 'content-type': 'application/json' } : {},
    });
    assertCode(res, 401, 'missing_authorization', `${method} ${path}`);
    const forged = await server.request(method, path, {
      token: 'sk-svc-forged-000000000000000000',
      ...(raw !== undefined && { raw }),
    });
    assertCode(forged, 401, 'invalid_api_key', `${method} ${path}`);
  }
  assert.is((await status(account, upload.id)).status, 'reserved');
});

test('an upload left idle past SVC_UPLOAD_TTL_S expires and its parts are deleted', async () => {
  // Time is simulated: the expiry fires when the test moves the clock, not after a real second.
  const clock = new SimulatedClock(Date.now());
  const short = await startServer({ SVC_UPLOAD_TTL_S: '1' }, { clock });
  try {
    const owner = await short.account();
    const res = await short.request('POST', '/v1/files/uploads', {
      token: owner.token,
      body: { filename: 'idle.bin', bytes: 100 },
    });
    assert.is(res.status, 200);
    const id = (res.body as UploadObject).id;
    assert.ok((res.body as UploadObject).expires_at! <= Math.ceil(Date.now() / 1000) + 1);
    assert.is((await putPart(owner, id, 0, Buffer.alloc(100, 9), {}, short)).status, 200);
    assert.ok(existsSync(join(uploadDir(id, short), '0')));
    clock.advance(999);
    assert.is(
      (await short.app.deps.uploads.settled(owner.id, id)).status,
      'receiving',
      'not expired before its deadline',
    );
    clock.advance(1);
    assert.is((await short.app.deps.uploads.settled(owner.id, id)).status, 'expired');
    assert.is((await status(owner, id, short)).status, 'expired');
    assert.not.ok(existsSync(uploadDir(id, short)), 'the parts directory is gone');
    assertCode(await putPart(owner, id, 0, Buffer.alloc(100, 9), {}, short), 409, 'upload_closed', 'part after expiry');
    assertCode(await complete(owner, id, short), 409, 'upload_closed', 'complete after expiry');
    assert.not.ok(existsSync(uploadDir(id, short)));
    assert.equal(tmpFiles(short), []);
  } finally {
    await short.close();
  }
});

test('a part body cut short by the client is dropped: the part stays missing and nothing is left on disk', async () => {
  const upload = await twoParts(account);
  const port = Number(new URL(server.url).port);
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.on('error', () => {}); // the reset after destroy is expected
  const head = [
    `PUT /v1/files/uploads/${upload.id}/parts/0 HTTP/1.1`,
    'Host: 127.0.0.1',
    `Authorization: Bearer ${account.token}`,
    'Content-Type: application/octet-stream',
    `Content-Length: ${PART}`,
    '',
    '',
  ].join('\r\n');
  await new Promise<void>((resolve) => socket.write(head, () => resolve()));
  await new Promise<void>((resolve) => socket.write(pseudoRandom(MiB, 7), () => resolve()));
  // The handler has started: a temporary file for the part exists.
  await untilDir(tmpDir(), (names) => names.length > 0, 'the part is being written');
  socket.destroy();

  await untilDir(tmpDir(), (names) => names.length === 0, 'the temporary file is deleted');
  const now = await status(account, upload.id);
  assert.equal(now.received_parts, []);
  assert.equal(now.missing_parts, [0, 1]);
  assert.not.ok(existsSync(join(uploadDir(upload.id), '0')), 'no part file');
  // The upload still takes the part whole.
  const whole = pseudoRandom(PART, 8);
  const res = await putPart(account, upload.id, 0, whole);
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.sha256, sha256(whole));
  assert.is((await cancel(account, upload.id)).status, 200);
});

test.run();
