import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { startChildServer, type ChildServer } from './child-server.js';
import { ADMIN_KEY, tempDataDir } from './harness.js';

const test = suite('realtime calls: a call cut by kill -9 is closed and charged exactly once after restart');
const dataDir = tempDataDir();
const env = { SVC_DATA_DIR: dataDir, SVC_ADMIN_KEY: ADMIN_KEY };

test.after(() => rmSync(dataDir, { recursive: true, force: true }));

async function call(server: ChildServer, method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(server.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function charges(server: ChildServer, token: string) {
  const usage = await call(server, 'GET', '/v1/account/usage', token);
  return {
    balance: usage.body.balance_usd as number,
    held: usage.body.held_usd as number,
    entries: (usage.body.recent as { amount_usd: number; description: string }[]).filter((e) =>
      e.description.startsWith('realtime call'),
    ),
  };
}

test('usage acknowledged by response.done survives SIGKILL and is charged once at the next boot, not again after', async () => {
  const first = await startChildServer(env);
  const admin = await call(first, 'POST', '/admin/v1/accounts', ADMIN_KEY, {
    email: 'caller@example.com',
    password: 'caller-pass-1',
    credit_usd: 5,
  });
  const token = admin.body.api_token.token as string;
  const ticket = (await call(first, 'POST', '/v1/realtime/ticket', token)).body.ticket as string;
  const ws = new WebSocket(`${first.url.replace('http', 'ws')}/v1/realtime?ticket=${ticket}`);
  const done = new Promise<any>((resolve, reject) => {
    ws.on('message', (data) => {
      const event = JSON.parse((data as Buffer).toString('utf8'));
      if (event.type === 'response.done') resolve(event);
    });
    ws.on('error', reject);
  });
  await new Promise((resolve) => ws.once('open', resolve));
  ws.send(JSON.stringify({ type: 'session.update', session: { output_modalities: ['text'] } }));
  ws.send(
    JSON.stringify({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Name three rivers.' }] },
    }),
  );
  ws.send(JSON.stringify({ type: 'response.create' }));
  const usage = (await done).response.usage;
  assert.ok(usage.output_tokens > 0);
  const before = await charges(first, token);
  assert.is(before.entries.length, 0, 'nothing is charged while the call is open');
  assert.ok(before.held > 0, 'the call holds money while open');
  await first.kill('SIGKILL');
  ws.terminate();

  const second = await startChildServer(env);
  // The server listens only once the orphaned call is closed and charged.
  const after = await charges(second, token);
  assert.is(after.entries.length, 1, 'the orphaned call is charged at boot');
  const charged = -after.entries[0]!.amount_usd;
  // Tokens at 12 / 48 USD per 1M (no audio in a text call).
  assert.is(charged, (usage.input_tokens * 12 + usage.output_tokens * 48) / 1e6);
  assert.is(after.held, 0);
  assert.ok(Math.abs(after.balance - (5 - charged)) < 1e-9);
  await second.kill('SIGKILL');

  const third = await startChildServer(env);
  try {
    const again = await charges(third, token);
    assert.is(again.entries.length, 1, 'a second restart charges nothing more');
    assert.ok(Math.abs(again.balance - (5 - charged)) < 1e-9);
  } finally {
    await third.kill('SIGTERM');
  }
});

test.run();
