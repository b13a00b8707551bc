import { readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { untilDir } from './dir-watch.js';
import { startServer, type TestAccount, type TestServer } from './harness.js';

const MAX_FILE = 64 * 1024;
const MAX_JSON = 64 * 1024;
const BOUNDARY = '----svc-test-boundary-7MA4YWxkTrZu0gW';

let server: TestServer;
let account: TestAccount;
/** The ids the account had before the test; a failed upload must leave them as they were. */
let listed: string[];

interface Part {
  name: string;
  filename?: string;
  type?: string;
  data: string | Buffer;
}

/** A multipart/form-data body; `close: false` leaves off the closing boundary (a body cut short). */
function multipart(parts: Part[], options: { close?: boolean } = {}): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
    const type = part.type ?? (part.filename !== undefined ? 'application/octet-stream' : undefined);
    chunks.push(
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n${type ? `Content-Type: ${type}\r\n` : ''}\r\n`,
      ),
    );
    chunks.push(typeof part.data === 'string' ? Buffer.from(part.data) : part.data);
    chunks.push(Buffer.from('\r\n'));
  }
  if (options.close !== false) chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

function postForm(body: Buffer, contentType = `multipart/form-data; boundary=${BOUNDARY}`) {
  return server.request('POST', '/v1/files', {
    token: account.token,
    raw: body,
    headers: { 'content-type': contentType },
  });
}

function postJson(body: unknown) {
  return server.request('POST', '/v1/files', { token: account.token, body });
}

async function fileIds(): Promise<string[]> {
  const res = await server.request('GET', '/v1/files?limit=10000', { token: account.token });
  assert.is(res.status, 200);
  return res.body.data.map((file: { id: string }) => file.id);
}

function tmpFiles(): string[] {
  return readdirSync(join(server.dataDir, 'files', 'tmp'));
}

/** A refused request: its status and code, and nothing left in tmp/ or added to the list. */
async function assertRefused(res: { status: number; body: any }, status: number, code: string): Promise<void> {
  assert.is(res.status, status, JSON.stringify(res.body));
  assert.is(res.body.error.code, code, JSON.stringify(res.body));
  assert.equal(tmpFiles(), [], 'no temporary file is left behind');
  assert.equal(await fileIds(), listed, 'the file list is unchanged');
}

/** A 422 whose detail names `loc`. */
async function assertInvalid(res: { status: number; body: any }, loc: (string | number)[]): Promise<void> {
  await assertRefused(res, 422, 'validation_error');
  const locs = (res.body.detail as { loc: unknown[] }[]).map((item) => JSON.stringify(item.loc));
  assert.ok(locs.includes(JSON.stringify(loc)), `${JSON.stringify(loc)} in ${locs.join(' ')}`);
}

const test = suite('files api: bad input to upload, list, read, delete and search is refused');

test.before(async () => {
  server = await startServer({ SVC_FILE_MAX_BYTES: String(MAX_FILE), SVC_FILE_JSON_MAX_BYTES: String(MAX_JSON) });
  account = await server.account();
  const seeded = await postJson({
    filename: 'seed.txt',
    file_data: Buffer.from('the one good file').toString('base64'),
  });
  assert.is(seeded.status, 200, JSON.stringify(seeded.body));
  listed = await fileIds();
});

test.after(async () => {
  await server.close();
});

test('a multipart file one byte over SVC_FILE_MAX_BYTES is 413 payload_too_large', async () => {
  const form = new FormData();
  form.append('purpose', 'assistants');
  form.append('file', new Blob([Buffer.alloc(MAX_FILE + 1, 0x61)]), 'big.txt');
  const res = await fetch(`${server.url}/v1/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.token}` },
    body: form,
  });
  await assertRefused({ status: res.status, body: await res.json() }, 413, 'payload_too_large');
});

test('a multipart file of exactly SVC_FILE_MAX_BYTES is stored', async () => {
  const res = await postForm(multipart([{ name: 'file', filename: 'exact.txt', data: Buffer.alloc(MAX_FILE, 0x62) }]));
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.bytes, MAX_FILE);
  const removed = await server.request('DELETE', `/v1/files/${res.body.id}`, { token: account.token });
  assert.is(removed.status, 200);
  assert.equal(await fileIds(), listed);
});

test('a multipart body declared far larger than the cap is 413 before it is read', async () => {
  const res = await postForm(multipart([{ name: 'file', filename: 'huge.bin', data: Buffer.alloc(4 * MAX_FILE, 1) }]));
  await assertRefused(res, 413, 'payload_too_large');
});

test('a JSON body over SVC_FILE_JSON_MAX_BYTES is 413 payload_too_large', async () => {
  const res = await postJson({ filename: 'big.txt', file_data: Buffer.alloc(MAX_JSON, 0x61).toString('base64') });
  await assertRefused(res, 413, 'payload_too_large');
});

test('an empty file is 422, sent as multipart or as JSON', async () => {
  await assertInvalid(await postForm(multipart([{ name: 'file', filename: 'empty.txt', data: '' }])), ['body', 'file']);
  await assertInvalid(await postJson({ filename: 'empty.txt', file_data: '' }), ['body', 'file_data']);
  await assertInvalid(await postJson({ filename: 'empty.txt', file_data: 'data:text/plain;base64,' }), [
    'body',
    'file_data',
  ]);
});

test('a Content-Type other than multipart/form-data or JSON is 415 unsupported_media_type', async () => {
  for (const type of ['text/plain', 'application/octet-stream', 'application/x-www-form-urlencoded', 'image/png']) {
    const res = await server.request('POST', '/v1/files', {
      token: account.token,
      raw: 'hello',
      headers: { 'content-type': type },
    });
    await assertRefused(res, 415, 'unsupported_media_type');
  }
});

test('multipart without a usable boundary, with garbage, or cut short is 400 invalid_multipart', async () => {
  const whole = multipart([{ name: 'file', filename: 'a.txt', data: 'some text' }]);
  await assertRefused(await postForm(whole, 'multipart/form-data'), 400, 'invalid_multipart');
  await assertRefused(await postForm(Buffer.from('this is not a multipart body at all')), 400, 'invalid_multipart');
  await assertRefused(
    await postForm(multipart([{ name: 'file', filename: 'a.txt', data: 'some text' }], { close: false })),
    400,
    'invalid_multipart',
  );
  // Cut in the middle of the file's bytes, well past its headers.
  const cut = multipart([{ name: 'file', filename: 'a.bin', data: Buffer.alloc(20_000, 7) }]).subarray(0, 10_000);
  await assertRefused(await postForm(cut), 400, 'invalid_multipart');
  // Cut inside the part headers.
  await assertRefused(
    await postForm(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="fi`)),
    400,
    'invalid_multipart',
  );
});

test('a multipart upload whose client disconnects mid-body leaves no temporary file behind', async () => {
  // Regression: the disconnect rejected the body while the parser was still opening the file, so
  // the file it then opened in tmp/ was never aborted.
  const port = Number(new URL(server.url).port);
  for (const data of ['', 'x'.repeat(5000), 'y'.repeat(40_000)]) {
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    socket.on('error', () => {}); // the reset after destroy is expected
    const head = `POST /v1/files HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${account.token}\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: 60000\r\n\r\n`;
    socket.write(
      `${head}--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="left.txt"\r\n\r\n${data}`,
    );
    socket.destroy();
  }
  await untilDir(
    join(server.dataDir, 'files', 'tmp'),
    (names) => names.length === 0,
    'every temporary file is deleted',
    2000,
  );
  assert.equal(tmpFiles(), [], 'every temporary file was deleted');
  assert.equal(await fileIds(), listed);
});

test('multipart with two files, too many parts or a part without Content-Disposition is refused', async () => {
  const two = multipart([
    { name: 'file', filename: 'one.txt', data: 'first' },
    { name: 'file', filename: 'two.txt', data: 'second' },
  ]);
  await assertInvalid(await postForm(two), ['body', 'file']);
  const many = multipart([
    ...Array.from({ length: 25 }, (_, i) => ({ name: `field${i}`, data: 'x' })),
    { name: 'file', filename: 'a.txt', data: 'text' },
  ]);
  await assertRefused(await postForm(many), 400, 'invalid_multipart');
  const headless = Buffer.from(`--${BOUNDARY}\r\nContent-Type: text/plain\r\n\r\ntext\r\n--${BOUNDARY}--\r\n`);
  await assertRefused(await postForm(headless), 400, 'invalid_multipart');
});

test('a JSON body sent chunked past SVC_FILE_JSON_MAX_BYTES is 413 too', async () => {
  const json = Buffer.from(
    JSON.stringify({ filename: 'big.txt', file_data: Buffer.alloc(MAX_JSON, 0x61).toString('base64') }),
  );
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let at = 0; at < json.length; at += 8192) controller.enqueue(json.subarray(at, at + 8192));
      controller.close();
    },
  });
  const res = await fetch(`${server.url}/v1/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' },
    body,
    duplex: 'half',
  });
  await assertRefused({ status: res.status, body: await res.json() }, 413, 'payload_too_large');
});

test('multipart with no file part is 422 with detail loc body.file', async () => {
  await assertInvalid(await postForm(multipart([{ name: 'purpose', data: 'assistants' }])), ['body', 'file']);
  // A part named "file" without a filename is a plain field, not a file.
  await assertInvalid(await postForm(multipart([{ name: 'file', data: 'just a field' }])), ['body', 'file']);
  await assertInvalid(await postForm(multipart([{ name: 'document', filename: 'a.txt', data: 'wrong name' }])), [
    'body',
    'file',
  ]);
});

test('an unknown purpose is 422 with detail loc body.purpose, as multipart or JSON', async () => {
  await assertInvalid(
    await postForm(
      multipart([
        { name: 'purpose', data: 'world-domination' },
        { name: 'file', filename: 'a.txt', data: 'text' },
      ]),
    ),
    ['body', 'purpose'],
  );
  await assertInvalid(await postJson({ filename: 'a.txt', file_data: 'dGV4dA==', purpose: 'world-domination' }), [
    'body',
    'purpose',
  ]);
  await assertInvalid(await postJson({ filename: 'a.txt', file_data: 'dGV4dA==', purpose: 7 }), ['body', 'purpose']);
});

test('a missing, empty, over-long or control-character filename is 422 with detail loc body.filename', async () => {
  await assertInvalid(await postForm(multipart([{ name: 'file', filename: '', data: 'text' }])), ['body', 'filename']);
  await assertInvalid(await postForm(multipart([{ name: 'file', filename: 'dir/', data: 'text' }])), [
    'body',
    'filename',
  ]);
  const res = await postJson({ file_data: 'dGV4dA==' });
  await assertInvalid(res, ['body', 'filename']);
  assert.ok(
    res.body.detail.some(
      (item: { loc: string[]; type: string }) => item.loc[1] === 'filename' && item.type === 'missing',
    ),
  );
  for (const filename of ['', '   ', 'a/b/', 'x'.repeat(256), 'bad\u0007name.txt', 'tab\tname.txt', 42]) {
    await assertInvalid(await postJson({ filename, file_data: 'dGV4dA==' }), ['body', 'filename']);
  }
});

test('a filename of . or .. (after any directory part is dropped) is 422 at body.filename, as multipart, JSON or an upload reservation', async () => {
  for (const filename of ['.', '..', 'dir/..', 'a\\.', ' .. ', '../..']) {
    await assertInvalid(await postForm(multipart([{ name: 'file', filename, data: 'text' }])), ['body', 'filename']);
    await assertInvalid(await postJson({ filename, file_data: 'dGV4dA==' }), ['body', 'filename']);
    await assertInvalid(
      await server.request('POST', '/v1/files/uploads', { token: account.token, body: { filename, bytes: 4096 } }),
      ['body', 'filename'],
    );
  }
  // Dots within a name are fine.
  const dotted = await server.request('POST', '/v1/files/uploads', {
    token: account.token,
    body: { filename: '...', bytes: 4096 },
  });
  assert.is(dotted.status, 200, JSON.stringify(dotted.body));
  assert.is(dotted.body.filename, '...');
  assert.is(
    (await server.request('DELETE', `/v1/files/uploads/${dotted.body.id}`, { token: account.token })).status,
    200,
  );
});

test('JSON with file_data missing, not base64 or not a string is 422 with detail loc body.file_data', async () => {
  for (const file_data of [undefined, 'not base64!', '%%%%', 'data:text/plain,raw text', 12]) {
    await assertInvalid(await postJson({ filename: 'a.txt', ...(file_data !== undefined && { file_data }) }), [
      'body',
      'file_data',
    ]);
  }
});

test('a JSON body that does not parse, or is not an object, is refused', async () => {
  const broken = await server.request('POST', '/v1/files', {
    token: account.token,
    raw: '{"filename": "a.txt",',
    headers: { 'content-type': 'application/json' },
  });
  await assertRefused(broken, 400, 'invalid_json');
  const empty = await server.request('POST', '/v1/files', {
    token: account.token,
    raw: '',
    headers: { 'content-type': 'application/json' },
  });
  await assertRefused(empty, 400, 'invalid_json');
  const array = await postJson([{ filename: 'a.txt', file_data: 'dGV4dA==' }]);
  await assertRefused(array, 422, 'validation_error');
});

test('listing with a bad limit, order or purpose is 422 with a query loc; an unknown after is 404', async () => {
  const cases: [string, string][] = [
    ['limit=0', 'limit'],
    ['limit=10001', 'limit'],
    ['limit=ten', 'limit'],
    ['limit=1.5', 'limit'],
    ['order=sideways', 'order'],
    ['purpose=everything', 'purpose'],
  ];
  for (const [query, field] of cases) {
    const res = await server.request('GET', `/v1/files?${query}`, { token: account.token });
    assert.is(res.status, 422, query);
    assert.is(res.body.error.code, 'validation_error');
    assert.equal(res.body.detail[0].loc, ['query', field], query);
  }
  const unknown = await server.request('GET', '/v1/files?after=file-doesnotexist000000000000', {
    token: account.token,
  });
  assert.is(unknown.status, 404);
  assert.is(unknown.body.error.code, 'not_found');
  assert.is((await server.request('GET', '/v1/files?limit=10000&order=asc', { token: account.token })).status, 200);
});

test('an unknown file id is 404 not_found on get, content and delete', async () => {
  for (const [method, path] of [
    ['GET', '/v1/files/file-doesnotexist000000000000'],
    ['GET', '/v1/files/file-doesnotexist000000000000/content'],
    ['DELETE', '/v1/files/file-doesnotexist000000000000'],
    ['GET', '/v1/files/not-even-an-id'],
  ] as const) {
    const res = await server.request(method, path, { token: account.token });
    assert.is(res.status, 404, `${method} ${path}`);
    assert.is(res.body.error.code, 'not_found');
  }
  assert.equal(await fileIds(), listed);
});

test('search with a missing, blank or non-string query is 422 with detail loc body.query', async () => {
  for (const body of [
    {},
    { query: '' },
    { query: '   ' },
    { query: 42 },
    { query: null },
    { query: 'x'.repeat(1001) },
  ]) {
    const res = await server.request('POST', '/v1/files/search', { token: account.token, body });
    await assertInvalid(res, ['body', 'query']);
  }
});

test('search with max_hits outside 1 to 100 or not an integer is 422 with detail loc body.max_hits', async () => {
  for (const max_hits of [0, 101, -1, 1.5, '5']) {
    const res = await server.request('POST', '/v1/files/search', {
      token: account.token,
      body: { query: 'good', max_hits },
    });
    await assertInvalid(res, ['body', 'max_hits']);
  }
  const ok = await server.request('POST', '/v1/files/search', {
    token: account.token,
    body: { query: 'good', max_hits: 100 },
  });
  assert.is(ok.status, 200);
  assert.is(ok.body.data.length, 1);
});

test('search with an unknown file_id is 404; a file_id that is not a string is 422', async () => {
  const unknown = await server.request('POST', '/v1/files/search', {
    token: account.token,
    body: { query: 'good', file_id: 'file-doesnotexist000000000000' },
  });
  assert.is(unknown.status, 404);
  assert.is(unknown.body.error.code, 'not_found');
  const wrong = await server.request('POST', '/v1/files/search', {
    token: account.token,
    body: { query: 'good', file_id: 5 },
  });
  await assertInvalid(wrong, ['body', 'file_id']);
  const nulled = await server.request('POST', '/v1/files/search', {
    token: account.token,
    body: { query: 'good', file_id: null },
  });
  assert.is(nulled.status, 200);
});

test('search with invalid JSON is 400 and with multipart is 415', async () => {
  const broken = await server.request('POST', '/v1/files/search', {
    token: account.token,
    raw: '{"query":',
    headers: { 'content-type': 'application/json' },
  });
  assert.is(broken.status, 400);
  assert.is(broken.body.error.code, 'invalid_json');
  const form = await server.request('POST', '/v1/files/search', {
    token: account.token,
    raw: multipart([{ name: 'query', data: 'good' }]),
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
  });
  assert.is(form.status, 415);
  assert.is(form.body.error.code, 'unsupported_media_type');
});

test('every file route without a token is 401 missing_authorization and with a bad one 401 invalid_api_key', async () => {
  const id = listed[0]!;
  const routes: [string, string, unknown][] = [
    ['GET', '/v1/files', undefined],
    ['POST', '/v1/files', { filename: 'a.txt', file_data: 'dGV4dA==' }],
    ['POST', '/v1/files/search', { query: 'good' }],
    ['GET', `/v1/files/${id}`, undefined],
    ['GET', `/v1/files/${id}/content`, undefined],
    ['DELETE', `/v1/files/${id}`, undefined],
  ];
  for (const [method, path, body] of routes) {
    const anonymous = await server.request(method, path, { body });
    assert.is(anonymous.status, 401, `${method} ${path}`);
    assert.is(anonymous.body.error.code, 'missing_authorization');
    const forged = await server.request(method, path, { body, token: 'sk-svc-not-a-real-token-000000000000' });
    assert.is(forged.status, 401, `${method} ${path}`);
    assert.is(forged.body.error.code, 'invalid_api_key');
    const session = await server.request(method, path, { body, token: account.session });
    assert.is(session.status, 401, `${method} ${path} with a session token`);
  }
  assert.equal(await fileIds(), listed, 'nothing was created or deleted');
  assert.equal(tmpFiles(), []);
});

test('a multipart upload refused for its token leaves nothing behind', async () => {
  const res = await server.request('POST', '/v1/files', {
    raw: multipart([{ name: 'file', filename: 'a.txt', data: 'text' }]),
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
  });
  await assertRefused(res, 401, 'missing_authorization');
});

test.run();
