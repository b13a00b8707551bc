import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startChildServer, type ChildServer } from './child-server.js';
import { startOtlpReceiver, type OtlpReceiver } from './doubles/otlp-receiver.js';
import { ADMIN_KEY, tempDataDir } from './harness.js';

const test = suite(
  'deploy traces: a session step run after kill -9 and restart still links to the request that started it',
);
const CLIENT_TRACE = '6df92f3577b34da6a3ce929d0e0e4738';
const CLIENT_SPAN = '20f067aa0ba902b9';
const dataDir = tempDataDir();
let receiver: OtlpReceiver;
let server: ChildServer | undefined;

/** Each life of the server exports as its own service name, so the spans say which life ran them. */
const envOf = (life: string) => ({
  SVC_DATA_DIR: dataDir,
  SVC_ADMIN_KEY: ADMIN_KEY,
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
  OTEL_SERVICE_NAME: life,
  // Exported at once: the first life is killed without a flush.
  OTEL_BSP_SCHEDULE_DELAY: '50',
});

test.before(async () => {
  receiver = await startOtlpReceiver();
});
test.after(async () => {
  await server?.kill('SIGKILL');
  await receiver.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function call(method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(server!.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** Reads a session's SSE from the start until `until` matches, or to the end of the run when null. */
async function followUntil(id: string, token: string, until: RegExp | null): Promise<void> {
  const res = await fetch(`${server!.url}/v1/chat/sessions/${id}/events?after=-1`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    text += decoder.decode(value, { stream: true });
    if (until?.test(text)) return void (await reader.cancel());
  }
}

test('the restored run exports steps whose link is the creating request span', async () => {
  server = await startChildServer(envOf('svc-first-life'));
  const admin = await call('POST', '/admin/v1/accounts', ADMIN_KEY, {
    email: 'traced-crash@example.com',
    password: 'crash-pass-1',
    credit_usd: 5,
  });
  const token = admin.body.api_token.token as string;
  // ~20 tokens per second: the drafting step lasts seconds, long enough to kill the server mid-step.
  const created = await call(
    'POST',
    '/v1/chat/sessions',
    token,
    {
      model: 'pro-1',
      messages: [{ role: 'user', content: 'Survive a crash with your trace' }],
      max_tokens: 60,
      metadata: { sim: { tokens_per_s: 20 } },
    },
    { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` },
  );
  assert.is(created.status, 201);
  const id = created.body.id as string;
  await followUntil(id, token, /"phase":"drafting"/);
  await server.kill('SIGKILL');

  server = await startChildServer(envOf('svc-second-life'));
  await followUntil(id, token, null);
  assert.is((await call('GET', `/v1/chat/sessions/${id}`, token)).body.state, 'completed');
  // A drain exports what is left.
  await server.kill('SIGTERM');
  server = undefined;

  const after = receiver.spans.filter(
    (span) => span.attributes['svc.actor.id'] === id && span.resource['service.name'] === 'svc-second-life',
  );
  assert.ok(after.length >= 1, `steps run after the restart: ${after.length}`);
  const creating = receiver.spans.find((span) => span.name === 'POST /v1/chat/sessions');
  assert.ok(creating, 'the first life exported the creating request span before the kill');
  assert.is(creating.traceId, CLIENT_TRACE);
  for (const step of after) {
    assert.match(step.name, /^actor\.step /);
    assert.equal(step.links, [`${CLIENT_TRACE}:${creating.spanId}`]);
  }
});

test.run();
