import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startChildServer, type ChildServer } from './child-server.js';
import { ADMIN_KEY, tempDataDir } from './harness.js';

const test = suite('responses: a background response survives kill -9, is finished after restart and charged once');
const dataDir = tempDataDir();
const env = { SVC_DATA_DIR: dataDir, SVC_ADMIN_KEY: ADMIN_KEY, SVC_CHAT_CACHE_TTL_S: '0' };
let server: ChildServer | undefined;

test.after(async () => {
  await server?.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/** Reads a response's SSE until the text matches `until` (then stops reading) or the server ends it. */
async function followUntil(id: string, token: string, until: RegExp | null): Promise<string> {
  const res = await fetch(`${server!.url}/v1/responses/${id}?stream=true`, {
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
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

test('SIGKILL mid-run, restart: the response completes by itself and the ledger has one charge', async () => {
  server = await startChildServer(env);
  const admin = await call('POST', '/admin/v1/accounts', ADMIN_KEY, {
    email: 'crash-responses@example.com',
    password: 'crash-pass-1',
    credit_usd: 5,
  });
  const token = admin.body.api_token.token as string;
  // ~20 tokens per second: the answer takes a few seconds, long enough to kill it mid-run.
  const created = await call('POST', '/v1/responses', token, {
    model: 'pro-1',
    input: 'Survive a crash in the background please',
    background: true,
    max_output_tokens: 60,
    metadata: { sim: { tokens_per_s: 20 } },
  });
  assert.is(created.status, 200);
  assert.is(created.body.status, 'queued');
  const id = created.body.id as string;
  await followUntil(id, token, /response\.output_text\.delta/);
  assert.is((await call('GET', `/v1/responses/${id}`, token)).body.status, 'in_progress');
  await server.kill('SIGKILL');

  server = await startChildServer(env);
  // The restored actor runs again by itself; its event stream ends with the final event.
  const events = await followUntil(id, token, null);
  assert.match(events, /response\.completed/);
  const done = (await call('GET', `/v1/responses/${id}`, token)).body;
  assert.is(done.status, 'completed');
  assert.ok(done.output[0].content[0].text.length > 0);
  const usage = await call('GET', '/v1/account/usage', token);
  const charges = usage.body.recent.filter((entry: { type: string }) => entry.type === 'charge');
  assert.is(charges.length, 1, `charged exactly once: ${JSON.stringify(usage.body.recent)}`);
  assert.is(Math.round(-charges[0].amount_usd * 1e6), Math.round(done.svc.price_usd * 1e6));
  const account = await call('GET', '/v1/account', token);
  assert.is(Math.round(account.body.balance_usd * 1e6), 5_000_000 - Math.round(done.svc.price_usd * 1e6));
  assert.is(account.body.held_usd, 0);
});

test.run();
