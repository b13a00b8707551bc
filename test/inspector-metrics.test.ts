import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN_KEY, startServer, type TestServer } from './harness.js';
import { sample } from './metrics-sample.js';

const test = suite('inspector: operator metrics at /metrics');
let server: TestServer;

const scrape = async () => {
  const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return res.text();
};

test.before(async () => {
  server = await startServer();
});
test.after(async () => {
  await server.close();
});

test('/metrics needs the admin key', async () => {
  assert.is((await server.request('GET', '/metrics')).status, 401);
  const user = await server.account(1);
  assert.is((await server.request('GET', '/metrics', { token: user.token })).status, 401);
});

test('requests by route and status with latency, holds and charges, upstream calls, live actors, transitions, process', async () => {
  const user = await server.account(5);
  const client = server.openai(user.token);
  await client.chat.completions.create({
    model: 'pro-1',
    messages: [{ role: 'user', content: 'count me' }],
    max_tokens: 10,
  });
  await server.request('GET', '/v1/files/file_nope', { token: user.token });
  const parked = await server.request('POST', '/v1/chat/sessions', {
    token: user.token,
    body: { model: 'pro-1', messages: [{ role: 'user', content: 'park' }], max_tokens: 10, require_approval: true },
  });
  assert.is(parked.status, 201);
  // One token a second: this one is still running (in memory) when the metrics are read.
  const running = await server.request('POST', '/v1/chat/sessions', {
    token: user.token,
    body: {
      model: 'pro-1',
      messages: [{ role: 'user', content: 'run' }],
      max_tokens: 10,
      metadata: { sim: { tokens_per_s: 1 } },
    },
  });
  assert.is(running.status, 201);
  const text = await scrape();
  assert.ok(
    (sample(text, 'svc_http_requests_total', { route: '/v1/chat/completions', method: 'POST', status: '200' }) ?? 0) >=
      1,
    'the completion is counted by its route pattern',
  );
  assert.ok(
    (sample(text, 'svc_http_requests_total', { route: '/v1/files/:file_id', status: '404' }) ??
      sample(text, 'svc_http_requests_total', { status: '404' }) ??
      0) >= 1,
    'the 404 is counted',
  );
  assert.ok(
    (sample(text, 'svc_http_request_duration_seconds_count', { route: '/v1/chat/completions' }) ?? 0) >= 1,
    'latency histogram',
  );
  assert.ok((sample(text, 'svc_billing_operations_total', { op: 'hold' }) ?? 0) >= 1, 'holds');
  assert.ok((sample(text, 'svc_billing_operations_total', { op: 'charge' }) ?? 0) >= 1, 'charges');
  assert.ok((sample(text, 'svc_billing_micro_usd_total', { op: 'charge' }) ?? 0) > 0, 'charged micro-USD');
  assert.ok(
    (sample(text, 'svc_upstream_calls_total', { backend: 'sim', kind: 'chat' }) ?? 0) >= 1,
    'upstream calls by backend',
  );
  assert.match(
    text,
    /^svc_actors_live\{machine="chat-session",state="running\.[a-z]+"\} [1-9]/m,
    'actors in memory by machine and state',
  );
  assert.ok(
    (sample(text, 'svc_actors_parked', { machine: 'chat-session' }) ?? 0) >= 1,
    'the session awaiting approval waits parked, out of memory',
  );
  assert.ok((sample(text, 'svc_actor_transitions_total', { machine: 'chat-session' }) ?? 0) >= 1, 'transitions');
  assert.ok(sample(text, 'svc_sse_streams_open') !== undefined, 'SSE streams open');
  assert.is(sample(text, 'svc_realtime_calls_open'), 0);
  assert.ok((sample(text, 'nodejs_heap_size_used_bytes') ?? 0) > 0, 'heap');
  assert.ok(sample(text, 'nodejs_eventloop_lag_seconds') !== undefined, 'event-loop lag');
});

test('an open SSE stream shows in svc_sse_streams_open and leaves it when the client goes', async () => {
  const user = await server.account(5);
  const parked = await server.request('POST', '/v1/chat/sessions', {
    token: user.token,
    body: { model: 'pro-1', messages: [{ role: 'user', content: 'follow' }], max_tokens: 10, require_approval: true },
  });
  // The count is the process's (other suites' servers share it): compare with what was open before.
  const before = sample(await scrape(), 'svc_sse_streams_open') ?? 0;
  const abort = new AbortController();
  const res = await fetch(`${server.url}/v1/chat/sessions/${parked.body.id}/events`, {
    headers: { authorization: `Bearer ${user.token}` },
    signal: abort.signal,
  });
  assert.is(res.status, 200);
  assert.is(sample(await scrape(), 'svc_sse_streams_open'), before + 1);
  abort.abort();
  let open = before + 1;
  for (let i = 0; i < 100 && open !== before; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    open = sample(await scrape(), 'svc_sse_streams_open') ?? -1;
  }
  assert.is(open, before);
});

test.run();
