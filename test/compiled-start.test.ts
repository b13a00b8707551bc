import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startChildServer, type ChildServer } from './child-server.js';
import { ADMIN_KEY, tempDataDir } from './harness.js';
import { makePdf } from './pdf-fixture.js';

const test = suite('npm start: the server runs compiled (dist/), workers, page and docs included');
const ROOT = resolve(import.meta.dirname, '..');
const dataDir = tempDataDir();
let server: ChildServer | undefined;

test.before(() => {
  // What `npm start` does first (prestart): the build, incremental.
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: ROOT,
      stdio: 'pipe',
    },
  );
});
test.after(async () => {
  await server?.kill('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
});

test('it starts without a TypeScript loader and serves chat, a PDF through its worker, the inspector page and the docs tools', async () => {
  server = await startChildServer({ SVC_DATA_DIR: dataDir, SVC_ADMIN_KEY: ADMIN_KEY }, { compiled: true });
  const args = server.process.spawnargs.join(' ');
  assert.match(args, 'dist/http/main.js');
  assert.not.match(args, 'tsx');
  const created = await fetch(`${server.url}/admin/v1/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
    body: JSON.stringify({ email: 'compiled@example.com', password: 'compiled-pass', credit_usd: 5 }),
  });
  const token = ((await created.json()) as { api_token: { token: string } }).api_token.token;
  const client = new OpenAI({ apiKey: token, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const chat = await client.chat.completions.create({ model: 'pro-1', messages: [{ role: 'user', content: 'Hi' }] });
  assert.ok(chat.choices[0]!.message.content);
  const pdf = await client.files.create({
    file: await toFile(makePdf([['Compiled worker text']]), 'c.pdf'),
    purpose: 'assistants',
  });
  const file = (await (
    await fetch(`${server.url}/v1/files/${pdf.id}`, { headers: { authorization: `Bearer ${token}` } })
  ).json()) as {
    extraction?: { status: string };
  };
  assert.is(file.extraction?.status, 'extracted', JSON.stringify(file));
  const page = await fetch(`${server.url}/inspector`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  assert.is(page.status, 200);
  assert.match(await page.text(), '<html');
  const docs = await fetch(`${server.url}/mcp/docs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'search_docs', arguments: { query: 'idempotency' } },
    }),
  });
  assert.match(await docs.text(), 'Idempotency');
});

test.run();
