import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { stateOf, type SessionSnapshot } from '../actors/sessions/session-record.js';
import { buildApp } from '../http/app.js';
import { loadConfig } from '../runtime/config.js';
import { createLogger } from '../runtime/logger.js';
import { startTracing } from '../runtime/trace-export.js';
import { startOtlpReceiver, type OtlpReceiver } from './doubles/otlp-receiver.js';
import { chunk, finishSse, startFakeUpstream, startSse, type FakeUpstream } from './fake-upstream.js';
import { ADMIN_KEY, tempDataDir } from './harness.js';

const test = suite('deploy: OpenTelemetry traces to an OTLP receiver (protobuf and JSON)');
const UPSTREAM_KEY = 'sk-upstream-Zq8Kf3LmW9xTr2Vb7Np4';
const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';

let upstream: FakeUpstream;

test.before(async () => {
  upstream = await startFakeUpstream((_request, res) => {
    startSse(res);
    finishSse(res, [
      chunk({ content: 'Hello' }),
      chunk({ content: ' there' }),
      chunk({ finishReason: 'stop' }),
      chunk({ noChoice: true, usage: { prompt_tokens: 11, completion_tokens: 2 } }),
    ]);
  });
});
test.after(() => upstream.close());

/** A server with tracing on toward `receiver`, an account on it, and one streamed chat completion with a client traceparent. */
async function streamedChat(receiver: OtlpReceiver, protocol: 'http/protobuf' | 'http/json') {
  const dataDir = tempDataDir();
  const config = loadConfig({
    PORT: '0',
    SVC_DATA_DIR: dataDir,
    SVC_ADMIN_KEY: ADMIN_KEY,
    SVC_BACKEND: 'openai-compatible',
    SVC_UPSTREAM_BASE_URL: upstream.url,
    SVC_UPSTREAM_API_KEY: UPSTREAM_KEY,
    SVC_UPSTREAM_MODEL: 'upstream-model',
    SVC_CHAT_CACHE_TTL_S: '0',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_SERVICE_NAME: 'svc-under-test',
  });
  const tracing = startTracing(config);
  const app = buildApp(config, { tracing, logger: createLogger('silent') });
  const url = `http://127.0.0.1:${await app.listen()}`;
  try {
    const created = await fetch(`${url}/admin/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        email: `traced-${protocol.slice(5)}@example.com`,
        password: 'correct horse battery',
        credit_usd: 5,
      }),
    });
    const token = ((await created.json()) as { api_token: { token: string } }).api_token.token;
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`,
      },
      body: JSON.stringify({ model: 'pro-1', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const text = await res.text();
    assert.is(res.status, 200);
    assert.ok(text.includes('Hello'));
    // A session: its steps run in the actor host after the request that started it answered.
    const session = await fetch(`${url}/v1/chat/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'pro-1', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.is(session.status, 201);
    const sessionId = ((await session.json()) as { id: string }).id;
    await app.deps.host.waitFor(
      sessionId,
      (snapshot) => stateOf(snapshot as unknown as SessionSnapshot).state === 'completed',
    );
    await tracing.flush();
    return { token, requestId: res.headers.get('x-request-id')!, sessionId };
  } finally {
    await app.close();
    await tracing.shutdown();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function checkTrace(receiver: OtlpReceiver, token: string, requestId: string): void {
  const server = receiver.spans.find((span) => span.name === 'POST /v1/chat/completions');
  assert.ok(server, `a server span arrived: ${receiver.spans.map((span) => span.name).join(', ')}`);
  const s = server;
  assert.is(s.kind, 2);
  // The client's trace continues: same trace id, the client's span as parent.
  assert.is(s.traceId, CLIENT_TRACE);
  assert.is(s.parentSpanId, CLIENT_SPAN);
  assert.is(s.attributes['http.route'], '/v1/chat/completions');
  assert.is(s.attributes['http.request.method'], 'POST');
  assert.is(s.attributes['http.response.status_code'], 200);
  assert.is(s.attributes['svc.request_id'], requestId);
  assert.match(String(s.attributes['svc.account_id']), /^acct_/);
  assert.ok(Number(s.attributes['svc.charge_micro_usd']) > 0, 'our charge is on the span');
  assert.is(s.resource['service.name'], 'svc-under-test');

  const client = receiver.spans.find((span) => span.kind === 3 && span.parentSpanId === s.spanId);
  assert.ok(client, 'a client span under the server span');
  const c = client;
  assert.is(c.traceId, CLIENT_TRACE);
  assert.is(c.attributes['gen_ai.operation.name'], 'chat');
  assert.is(c.attributes['gen_ai.request.model'], 'upstream-model');
  assert.is(c.attributes['gen_ai.usage.input_tokens'], 11);
  assert.is(c.attributes['gen_ai.usage.output_tokens'], 2);
  assert.is(c.attributes['gen_ai.response.id'], 'chatcmpl-fake');
  assert.equal(c.attributes['gen_ai.response.finish_reasons'], ['stop']);

  // The upstream got the client span's context.
  const sent = upstream.requests.map((request) => request.headers.traceparent);
  assert.ok(sent.includes(`00-${CLIENT_TRACE}-${c.spanId}-01`), `traceparents sent upstream: ${sent.join(', ')}`);

  const exported = Buffer.concat(receiver.raw).toString('latin1');
  for (const secret of [token, ADMIN_KEY, UPSTREAM_KEY, 'correct horse battery'])
    assert.not.ok(exported.includes(secret), 'a secret was exported in a span');
}

/** The session's steps are spans of their own, each linked to the request that created the session. */
function checkSessionSteps(receiver: OtlpReceiver, sessionId: string): void {
  const created = receiver.spans.find((span) => span.name === 'POST /v1/chat/sessions');
  assert.ok(created, 'the creating request has its server span');
  const steps = receiver.spans.filter((span) => span.attributes['svc.actor.id'] === sessionId);
  assert.ok(steps.length >= 2, `several steps of the session: ${steps.length}`);
  for (const step of steps) {
    assert.match(step.name, /^actor\.step /);
    assert.equal(step.links, [`${created.traceId}:${created.spanId}`]);
  }
  assert.ok(steps.some((step) => step.attributes['svc.actor.cause'] === 'xstate.init'));
}

test('protobuf (the default): a server span continuing the client trace and a GenAI client span under it', async () => {
  const receiver = await startOtlpReceiver();
  try {
    const { token, requestId, sessionId } = await streamedChat(receiver, 'http/protobuf');
    assert.ok(receiver.contentTypes.every((type) => type.startsWith('application/x-protobuf')));
    checkTrace(receiver, token, requestId);
    checkSessionSteps(receiver, sessionId);
  } finally {
    await receiver.close();
  }
});

test('http/json when asked: the same spans, as OTLP JSON', async () => {
  const receiver = await startOtlpReceiver();
  try {
    const { token, requestId, sessionId } = await streamedChat(receiver, 'http/json');
    assert.ok(receiver.contentTypes.every((type) => type.startsWith('application/json')));
    checkTrace(receiver, token, requestId);
    checkSessionSteps(receiver, sessionId);
  } finally {
    await receiver.close();
  }
});

test('off by default: no OTLP variable, no tracing', () => {
  const config = loadConfig({});
  assert.is(config.OTEL_EXPORTER_OTLP_ENDPOINT, undefined);
  assert.is(config.OTEL_EXPORTER_OTLP_PROTOCOL, 'http/protobuf');
});

test.run();
