import { toFile } from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  CompletedUploadObjectSchema,
  FileDeletedObjectSchema,
  FileListObjectSchema,
  FileObjectSchema,
  FileSearchResultsObjectSchema,
  UploadObjectSchema,
  UploadPartObjectSchema,
} from '../protocols/files.js';
import { startServer, type TestAccount, type TestServer } from './harness.js';
import { assertWire } from './wire-check.js';

const test = suite('files wire: every files and uploads response matches its zod schema');

let server: TestServer;
let account: TestAccount;

test.before(async () => {
  server = await startServer();
  account = await server.account();
});

test.after(async () => {
  await server.close();
});

test('file objects from JSON and multipart uploads, get, list pages, search hits and deletion', async () => {
  const json = assertWire(
    FileObjectSchema,
    await server.request('POST', '/v1/files', {
      token: account.token,
      body: { filename: 'notes.md', file_data: Buffer.from('# Wombats\nThe wombat digs burrows.').toString('base64') },
    }),
    200,
    'JSON upload',
  );
  assert.is(json.extraction.status, 'extracted');
  const form = await server
    .openai(account.token)
    .files.create({ file: await toFile(Buffer.from('wombat and echidna'), 'pair.txt'), purpose: 'user_data' });
  assertWire(
    FileObjectSchema,
    await server.request('GET', `/v1/files/${form.id}`, { token: account.token }),
    200,
    'get',
  );
  const binary = assertWire(
    FileObjectSchema,
    await server.request('POST', '/v1/files', {
      token: account.token,
      body: { filename: 'blob.bin', file_data: Buffer.from([0, 1, 2, 255]).toString('base64') },
    }),
    200,
    'binary upload',
  );
  assert.is.not(binary.extraction.status, 'extracted');

  const page = assertWire(
    FileListObjectSchema,
    await server.request('GET', '/v1/files?limit=2', { token: account.token }),
    200,
    'list',
  );
  assert.is(page.has_more, true);
  const empty = assertWire(
    FileListObjectSchema,
    await server.request('GET', '/v1/files?purpose=batch', { token: account.token }),
    200,
    'empty list',
  );
  assert.is(empty.first_id, null);

  const found = assertWire(
    FileSearchResultsObjectSchema,
    await server.request('POST', '/v1/files/search', { token: account.token, body: { query: 'wombat' } }),
    200,
    'search',
  );
  assert.ok(found.data.length >= 2);
  assert.ok(found.data.some((hit) => hit.matches.length > 0));
  assertWire(
    FileSearchResultsObjectSchema,
    await server.request('POST', '/v1/files/search', { token: account.token, body: { query: 'platypus' } }),
    200,
    'search, no hits',
  );

  const deleted = assertWire(
    FileDeletedObjectSchema,
    await server.request('DELETE', `/v1/files/${json.id}`, { token: account.token }),
    200,
    'delete',
  );
  assert.is(deleted.id, json.id);
});

test('upload objects through reserve, part, status, completion and cancel', async () => {
  const reserved = assertWire(
    UploadObjectSchema,
    await server.request('POST', '/v1/files/uploads', {
      token: account.token,
      body: { filename: 'five.txt', bytes: 5 },
    }),
    200,
    'reserve',
  );
  assert.is(reserved.status, 'reserved');
  const part = await server.request('PUT', `/v1/files/uploads/${reserved.id}/parts/0`, {
    token: account.token,
    raw: 'hello',
    headers: { 'content-type': 'application/octet-stream' },
  });
  assertWire(UploadPartObjectSchema, part, 200, 'part');
  assertWire(
    UploadObjectSchema,
    await server.request('GET', `/v1/files/uploads/${reserved.id}`, { token: account.token }),
    200,
    'receiving',
  );
  const completed = assertWire(
    CompletedUploadObjectSchema,
    await server.request('POST', `/v1/files/uploads/${reserved.id}/complete`, { token: account.token }),
    200,
    'complete',
  );
  assert.is(completed.upload_id, reserved.id);
  const after = assertWire(
    UploadObjectSchema,
    await server.request('GET', `/v1/files/uploads/${reserved.id}`, { token: account.token }),
    200,
    'completed',
  );
  assert.is(after.file?.id, completed.id);

  const other = assertWire(
    UploadObjectSchema,
    await server.request('POST', '/v1/files/uploads', {
      token: account.token,
      body: { filename: 'gone.bin', bytes: 10 },
    }),
    200,
    'reserve',
  );
  const cancelled = assertWire(
    UploadObjectSchema,
    await server.request('DELETE', `/v1/files/uploads/${other.id}`, { token: account.token }),
    200,
    'cancel',
  );
  assert.is(cancelled.status, 'cancelled');
  assert.is(cancelled.expires_at, null);
});

test.run();
