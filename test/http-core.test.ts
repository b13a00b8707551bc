import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer, type TestAccount, chatBody } from './harness.js';

const test = suite('http core: envelope, limits, request ids');
let server: TestServer;
let account: TestAccount;

test.before(async () => {
  server = await startServer({ SVC_MAX_BODY_BYTES: '4096' });
  account = await server.account(1);
});
test.after(() => server.close());

test('an unknown route is a 404 in the error envelope with a request id', async () => {
  const res = await server.request('GET', '/v1/does-not-exist', { token: account.token });
  assert.is(res.status, 404);
  assert.is(res.body.error.code, 'not_found');
  assert.is(res.body.error.type, 'not_found_error');
  assert.ok('param' in res.body.error);
  assert.is(res.body.request_id, res.headers.get('x-request-id'));
});

test('a wrong method is a 405 that lists the allowed methods', async () => {
  const res = await server.request('DELETE', '/v1/models', { token: account.token });
  assert.is(res.status, 405);
  assert.is(res.body.error.code, 'method_not_allowed');
  assert.is(res.headers.get('allow'), 'GET, HEAD, OPTIONS');
});

test('every response carries X-Request-ID, distinct per request', async () => {
  const a = await server.request('GET', '/v1/pricing');
  const b = await server.request('GET', '/healthz');
  const idA = a.headers.get('x-request-id');
  const idB = b.headers.get('x-request-id');
  assert.ok(idA && idB);
  assert.is.not(idA, idB);
});

test('malformed JSON is a 400 invalid_json, never a 500', async () => {
  for (const raw of ['{"model":', 'not json', '{"a":1}}']) {
    const res = await server.request('POST', '/v1/chat/completions', {
      token: account.token,
      raw,
      headers: { 'content-type': 'application/json' },
    });
    assert.is(res.status, 400, raw);
    assert.is(res.body.error.code, 'invalid_json');
    assert.type(res.body.request_id, 'string');
  }
});

test('an empty body is a 400 with a clear message', async () => {
  const res = await server.request('POST', '/v1/estimate', { raw: '' });
  assert.is(res.status, 400);
  assert.is(res.body.error.code, 'invalid_json');
});

test('a body over the cap is a 413 in the envelope', async () => {
  const big = chatBody('x'.repeat(10_000));
  const res = await server.request('POST', '/v1/chat/completions', { token: account.token, body: big });
  assert.is(res.status, 413);
  assert.is(res.body.error.code, 'payload_too_large');
});

test('a body over the cap sent in chunks without Content-Length is also a 413', async () => {
  const chunks = [
    Buffer.from('{"model":"pro-1","messages":[{"role":"user","content":"'),
    Buffer.alloc(8000, 'y'),
    Buffer.from('"}]}'),
  ];
  const stream = new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  const res = await fetch(`${server.url}/v1/estimate`, { method: 'POST', body: stream, duplex: 'half' });
  assert.is(res.status, 413);
  const body = (await res.json()) as { error: { code: string } };
  assert.is(body.error.code, 'payload_too_large');
});

test('validation failures are 422 with detail items of loc, msg and type', async () => {
  const res = await server.request('POST', '/v1/chat/completions', {
    token: account.token,
    body: { model: 'pro-1', messages: 'hi', n: 'two' },
  });
  assert.is(res.status, 422);
  assert.ok(Array.isArray(res.body.detail));
  const locs = res.body.detail.map((d: { loc: unknown[] }) => d.loc.join('.'));
  assert.ok(locs.includes('body.messages'), JSON.stringify(locs));
  assert.ok(locs.includes('body.n'), JSON.stringify(locs));
  for (const item of res.body.detail) {
    assert.type(item.msg, 'string');
    assert.type(item.type, 'string');
  }
  assert.is(res.body.error.code, 'validation_error');
  assert.type(res.body.request_id, 'string');
});

test('a JSON value that is not an object is a 422', async () => {
  for (const body of [[1, 2], 'text', 42, null]) {
    const res = await server.request('POST', '/v1/estimate', { body });
    assert.is(res.status, 422, JSON.stringify(body));
  }
});

test('extra properties are accepted where the spec says so', async () => {
  const res = await server.request('POST', '/v1/chat/completions', {
    token: account.token,
    body: chatBody('hi', { seed: 7, vendor_extension: { a: 1 } }),
  });
  assert.is(res.status, 200);
});

test('bad query parameters are a 422 with loc in query', async () => {
  const res = await server.request('GET', '/v1/account/usage?limit=zero', { token: account.token });
  assert.is(res.status, 422);
  assert.equal(res.body.detail[0].loc, ['query', 'limit']);
});

test('a trailing slash reaches the same route', async () => {
  const res = await server.request('GET', '/v1/pricing/');
  assert.is(res.status, 200);
});

test('a multipart body on a JSON route is a 415', async () => {
  const form = new FormData();
  form.set('model', 'pro-1');
  const res = await fetch(`${server.url}/v1/estimate`, { method: 'POST', body: form });
  assert.is(res.status, 415);
});

test('keep-alive survives an error response before the body is read', async () => {
  for (let i = 0; i < 5; i++) {
    const res = await server.request('POST', '/v1/chat/completions', { body: chatBody() });
    assert.is(res.status, 401);
  }
  const ok = await server.request('GET', '/healthz');
  assert.is(ok.status, 200);
});

test.run();
