import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startChildServer, type ChildServer } from './child-server.js';
import { ADMIN_KEY, tempDataDir } from './harness.js';

const test = suite('chat sessions: a run survives kill -9 and is charged exactly once');
const dataDir = tempDataDir();
const env = { SVC_DATA_DIR: dataDir, SVC_ADMIN_KEY: ADMIN_KEY };
let server: ChildServer | undefined;

test.after(async () => {
  await server?.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * Follows a session's SSE from the start until an event's text matches `until` (then stops
 * reading), or until the server ends the stream after the run's ending event. Event-driven: no polling.
 */
async function followUntil(id: string, token: string, until: RegExp | null): Promise<string> {
  const res = await fetch(`${server!.url}/v1/chat/sessions/${id}/events?after=-1`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return text;
    text += decoder.decode(value, { stream: true });
    if (until?.test(text)) {
      await reader.cancel();
      return text;
    }
  }
}

async function call(method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(server!.url + path, {
    method,
    headers: { authorization: `Bearer ${token}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

test('SIGKILL mid-run, restart: the session completes, its log is gap-free, one charge', async () => {
  server = await startChildServer(env);
  const admin = await call('POST', '/admin/v1/accounts', ADMIN_KEY, {
    email: 'crash@example.com',
    password: 'crash-pass-1',
    credit_usd: 5,
  });
  const token = admin.body.api_token.token as string;
  // ~20 tokens per second: the drafting step takes a few seconds, long enough to kill it mid-call.
  const created = await call('POST', '/v1/chat/sessions', token, {
    model: 'pro-1',
    messages: [{ role: 'user', content: 'Survive a crash please' }],
    max_tokens: 60,
    metadata: { sim: { tokens_per_s: 20 } },
  });
  assert.is(created.status, 201);
  const id = created.body.id as string;
  await followUntil(id, token, /"phase":"drafting"/);
  const mid = await call('GET', `/v1/chat/sessions/${id}`, token);
  assert.is(mid.body.state, 'running');
  await server.kill('SIGKILL');

  server = await startChildServer(env);
  // The restored run goes on by itself; its event stream ends with its ending event.
  await followUntil(id, token, null);
  const done = (await call('GET', `/v1/chat/sessions/${id}`, token)).body;
  assert.is(done.state, 'completed');
  const page = await call('GET', `/v1/chat/sessions/${id}/events-page?limit=1000`, token);
  const seqs = page.body.events.map((e: { seq: number }) => e.seq);
  assert.equal(
    seqs,
    Array.from({ length: seqs.length }, (_, i) => i + 1),
    'gap-free and no duplicates',
  );
  const types = page.body.events.map((e: { type: string }) => e.type);
  assert.is(types.filter((t: string) => t === 'completed').length, 1);
  const usage = await call('GET', '/v1/account/usage', token);
  const charges = usage.body.recent.filter(
    (e: { type: string; description: string }) => e.type === 'charge' && e.description.includes(id),
  );
  assert.is(charges.length, 1, `charged exactly once: ${JSON.stringify(usage.body.recent)} ${JSON.stringify(done)}`);
  assert.is(Math.round(-charges[0].amount_usd * 1e6), Math.round(done.price_usd * 1e6));
  const account = await call('GET', '/v1/account', token);
  assert.is(Math.round(account.body.balance_usd * 1e6), 5_000_000 - Math.round(done.price_usd * 1e6));
  assert.is(account.body.held_usd, 0);
});

test.run();
