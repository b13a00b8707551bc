import { createHash, randomFillSync } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startChildServer, type ChildServer } from './child-server.js';
import { ADMIN_KEY, tempDataDir } from './harness.js';

const test = suite('file uploads: an upload survives kill -9 and completes after restart');
const dataDir = tempDataDir();
const env = { SVC_DATA_DIR: dataDir, SVC_ADMIN_KEY: ADMIN_KEY };
const MiB = 1024 * 1024;

test.after(() => rmSync(dataDir, { recursive: true, force: true }));

async function call(server: ChildServer, method: string, path: string, token: string, body?: unknown) {
  const raw = Buffer.isBuffer(body);
  const res = await fetch(server.url + path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'content-type': raw ? 'application/octet-stream' : 'application/json' }),
    },
    body: body === undefined ? undefined : raw ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const parts = [8 * MiB, 8 * MiB, MiB + 17].map((size) => randomFillSync(Buffer.alloc(size)));
const whole = createHash('sha256');
for (const part of parts) whole.update(part);
const sha256 = whole.digest('hex');
const bytes = parts.reduce((sum, part) => sum + part.length, 0);

test('acknowledged parts survive SIGKILL; the rest and completion work after restart', async () => {
  const first = await startChildServer(env);
  const admin = await call(first, 'POST', '/admin/v1/accounts', ADMIN_KEY, {
    email: 'uploader@example.com',
    password: 'uploader-pass-1',
  });
  const token = admin.body.api_token.token as string;
  const upload = await call(first, 'POST', '/v1/files/uploads', token, { filename: 'crash.bin', bytes });
  assert.is(upload.status, 200);
  const id = upload.body.id as string;
  assert.is((await call(first, 'PUT', `/v1/files/uploads/${id}/parts/2`, token, parts[2])).status, 200);
  assert.is((await call(first, 'PUT', `/v1/files/uploads/${id}/parts/0`, token, parts[0])).status, 200);
  await first.kill('SIGKILL');

  const second = await startChildServer(env);
  try {
    const after = await call(second, 'GET', `/v1/files/uploads/${id}`, token);
    assert.is(after.body.status, 'receiving');
    assert.equal(after.body.received_parts, [0, 2]);
    assert.equal(after.body.missing_parts, [1]);
    assert.is((await call(second, 'PUT', `/v1/files/uploads/${id}/parts/1`, token, parts[1])).status, 200);
    const done = await call(second, 'POST', `/v1/files/uploads/${id}/complete`, token);
    assert.is(done.status, 200, JSON.stringify(done.body));
    assert.is(done.body.sha256, sha256);
    assert.is(done.body.bytes, bytes);
    const content = await fetch(`${second.url}/v1/files/${done.body.id}/content`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.is(
      createHash('sha256')
        .update(Buffer.from(await content.arrayBuffer()))
        .digest('hex'),
      sha256,
    );
    assert.equal(readdirSync(join(dataDir, 'files', 'uploads')), [], 'the parts are gone once the file is stored');
  } finally {
    await second.kill('SIGTERM');
  }
});

test('a kill during completion still ends in exactly one stored file after restart', async () => {
  const first = await startChildServer(env);
  const admin = await call(first, 'POST', '/admin/v1/accounts', ADMIN_KEY, {
    email: 'assembler@example.com',
    password: 'assembler-pass-1',
  });
  const token = admin.body.api_token.token as string;
  const id = (await call(first, 'POST', '/v1/files/uploads', token, { filename: 'assembling.bin', bytes })).body
    .id as string;
  for (const [n, part] of parts.entries())
    assert.is((await call(first, 'PUT', `/v1/files/uploads/${id}/parts/${n}`, token, part)).status, 200);
  // The kill lands before, during or after assembly; each must end in the same place.
  void fetch(`${first.url}/v1/files/uploads/${id}/complete`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  }).catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 30));
  await first.kill('SIGKILL');

  const second = await startChildServer(env);
  try {
    // Completing starts the assembly if the kill came first, waits for the one rehydration restarted,
    // or returns the file an assembly already stored: no polling either way.
    assert.is((await call(second, 'POST', `/v1/files/uploads/${id}/complete`, token)).status, 200);
    const state = (await call(second, 'GET', `/v1/files/uploads/${id}`, token)).body;
    assert.is(state.status, 'completed');
    assert.is(state.file.sha256, sha256);
    const files = await call(second, 'GET', '/v1/files', token);
    assert.equal(
      files.body.data.map((file: { id: string }) => file.id),
      [state.file.id],
      'one file, not two',
    );
    assert.equal(readdirSync(join(dataDir, 'files', 'tmp')), [], 'no temporary blobs are left');
  } finally {
    await second.kill('SIGTERM');
  }
});

test.run();
