import { connect } from 'node:net';
import OpenAI, { toFile } from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { startChildServer, type ChildServer } from './child-server.js';
import { ADMIN_KEY, startServer, tempDataDir, type TestAccount, type TestServer } from './harness.js';

const test = suite('http edges: framing, methods, malformed requests and early answers');
let server: TestServer;
let account: TestAccount;
let port: number;

test.before(async () => {
  server = await startServer({ SVC_FILE_MAX_BYTES: String(1024 * 1024) });
  account = await server.account(1);
  port = Number(new URL(server.url).port);
});
test.after(() => server.close());

/** What a raw connection received and whether the server closed it, after `waitMs` of quiet at most. */
interface RawResult {
  text: string;
  closedByServer: boolean;
}

/** Writes `raw` on a fresh connection and collects what comes back until the server closes or `waitMs` passes. */
function rawExchange(raw: string | Buffer, waitMs = 400): Promise<RawResult> {
  return new Promise((resolve) => {
    let text = '';
    let closedByServer = false;
    const socket = connect(port, '127.0.0.1', () => socket.write(raw));
    const timer = setTimeout(() => socket.destroy(), waitMs);
    socket.on('data', (data) => (text += data.toString('latin1')));
    socket.on('end', () => (closedByServer = true));
    socket.on('error', () => (closedByServer = true));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closedByServer });
    });
  });
}

/** The status codes of every response in a raw transcript, in order. */
const statuses = (text: string) => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));

async function healthy(): Promise<void> {
  const res = await server.request('GET', '/healthz');
  assert.is(res.status, 200);
}

test('conflicting Content-Length headers are a 400 and the connection closes (regression: the first was used and the rest read as the next request)', async () => {
  const body = '{"model":"pro-1","messages":[{"role":"user","content":"hi"}]}'.slice(0, 57);
  const raw = `POST /v1/estimate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 17\r\nContent-Length: 57\r\n\r\n${body}`;
  const result = await rawExchange(raw, 2000);
  assert.equal(statuses(result.text), [400]);
  assert.match(result.text, /"code":"invalid_request"/);
  assert.match(result.text, /x-request-id: req_/i);
  assert.ok(result.closedByServer);
  // With a request hidden after the first length, nothing is served: uWS drops the connection on the leftover bytes.
  const smuggled = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n';
  const sneaky = await rawExchange(
    `POST /v1/estimate HTTP/1.1\r\nHost: x\r\nContent-Length: 17\r\nContent-Length: ${57 + smuggled.length}\r\n\r\n${body}${smuggled}`,
    2000,
  );
  assert.not.ok(statuses(sneaky.text).includes(200), sneaky.text);
  assert.ok(sneaky.closedByServer);
  await healthy();
});

test('Transfer-Encoding together with Content-Length is refused by uWS itself: no answer is served and the connection closes', async () => {
  const raw =
    'POST /v1/estimate HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n';
  const result = await rawExchange(raw, 2000);
  assert.equal(statuses(result.text), []);
  assert.ok(result.closedByServer);
  await healthy();
});

test('HEAD on a GET route answers like GET without the body and keeps the connection (regression: 405)', async () => {
  const get = await fetch(`${server.url}/v1/pricing`);
  const getBody = await get.text();
  const head = await fetch(`${server.url}/v1/pricing`, { method: 'HEAD' });
  assert.is(head.status, 200);
  assert.is(head.headers.get('content-type'), get.headers.get('content-type'));
  assert.is(head.headers.get('content-length'), String(Buffer.byteLength(getBody)));
  assert.is(await head.text(), '');
  // Two requests on one connection: the HEAD answer carried no body, so the next parses cleanly.
  const result = await rawExchange('HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
  assert.equal(statuses(result.text), [200, 200]);
  assert.is(result.text.split('\r\n\r\n')[1]!.startsWith('HTTP/1.1 200'), true, 'the HEAD answer has no body');
  const missing = await fetch(`${server.url}/v1/nothing-here`, { method: 'HEAD' });
  assert.is(missing.status, 404);
  assert.is(await missing.text(), '');
});

test('HEAD of a file gives its size without its bytes', async () => {
  const uploaded = await server.request('POST', '/v1/files', {
    token: account.token,
    body: { filename: 'a.txt', file_data: Buffer.from('hello head').toString('base64') },
  });
  const head = await fetch(`${server.url}/v1/files/${uploaded.body.id}/content`, {
    method: 'HEAD',
    headers: { authorization: `Bearer ${account.token}` },
  });
  assert.is(head.status, 200);
  assert.is(head.headers.get('content-length'), '10');
  assert.is(await head.text(), '');
});

test('OPTIONS lists the methods of a path; TRACE and CONNECT are 501 in the envelope', async () => {
  const options = await fetch(`${server.url}/v1/chat/sessions`, { method: 'OPTIONS' });
  assert.is(options.status, 204);
  assert.is(options.headers.get('allow'), 'POST, GET, HEAD, OPTIONS');
  const trace = await rawExchange('TRACE /v1/models HTTP/1.1\r\nHost: x\r\n\r\n');
  assert.equal(statuses(trace.text), [501]);
  assert.match(trace.text, /"code":"not_implemented"/);
});

test('methods uWS does not route (PROPFIND, PURGE) and requests its parser refuses leave the server healthy (documented in docs/http-edges.md)', async () => {
  const refusedByUws = [
    'PROPFIND /v1/models HTTP/1.1\r\nHost: x\r\n\r\n',
    'PURGE /v1/models HTTP/1.1\r\nHost: x\r\n\r\n',
    'GET /v1/models HTTP/1.0\r\nHost: x\r\n\r\n',
    'GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Bad: a\0b\r\n\r\n',
    `GET /v1/models HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 60 }, (_, i) => `X-H${i}: v\r\n`).join('')}\r\n`,
    'GET /v1/mod els HTTP/1.1\r\nHost: x\r\n\r\n',
    'GET * HTTP/1.1\r\nHost: x\r\n\r\n',
    'GET http://127.0.0.1/healthz HTTP/1.1\r\nHost: x\r\n\r\n',
    'GET healthz HTTP/1.1\r\nHost: x\r\n\r\n',
  ];
  const results = await Promise.all(refusedByUws.map((raw) => rawExchange(raw, 300)));
  for (const [i, result] of results.entries()) {
    assert.ok(
      statuses(result.text).every((status) => status < 500),
      `case ${i}: ${result.text.slice(0, 200)}`,
    );
  }
  await healthy();
});

test('an answer given before the body is read keeps the connection: the next request on it is served', async () => {
  const body = 'x'.repeat(200_000);
  const raw = `POST /v1/no-such-route HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: ${body.length}\r\n\r\n${body}GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`;
  const result = await rawExchange(raw, 1000);
  assert.equal(statuses(result.text), [404, 200]);
});

/** A server in its own process: only across processes does a close mid-upload reach the client as EPIPE. */
async function childWithAccount(): Promise<{ child: ChildServer; token: string; dataDir: string }> {
  const dataDir = tempDataDir();
  const child = await startChildServer({
    SVC_DATA_DIR: dataDir,
    SVC_ADMIN_KEY: ADMIN_KEY,
    SVC_FILE_MAX_BYTES: String(1024 * 1024),
  });
  const created = await fetch(`${child.url}/admin/v1/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'edges@example.com', password: 'correct horse battery', credit_usd: 1 }),
  });
  const body = (await created.json()) as { api_token: { token: string } };
  return { child, token: body.api_token.token, dataDir };
}

/** The error a promise rejects with, or null. */
const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (err: unknown) => err,
  );

test("the SDK's multipart uploads get the early 404, 401 and 413, not a connection error (regression: EPIPE while still sending)", async () => {
  const { child, token, dataDir } = await childWithAccount();
  try {
    for (const size of [100_000, 1_000_000, 3_000_000, 20_000_000]) {
      const file = () => toFile(Buffer.alloc(size, 7), 'big.wav');
      const lost = new OpenAI({ apiKey: token, baseURL: `${child.url}/v1/not-a-prefix`, maxRetries: 0 });
      const notFound = await rejection(lost.files.create({ file: await file(), purpose: 'assistants' }));
      assert.instance(notFound, OpenAI.NotFoundError, `${size}: ${String(notFound)}`);
      const stranger = new OpenAI({ apiKey: 'sk-svc-not-a-real-token', baseURL: `${child.url}/v1`, maxRetries: 0 });
      const unauthorized = await rejection(stranger.files.create({ file: await file(), purpose: 'assistants' }));
      assert.instance(unauthorized, OpenAI.AuthenticationError, `${size}: ${String(unauthorized)}`);
      if (size > 1024 * 1024) {
        const client = new OpenAI({ apiKey: token, baseURL: `${child.url}/v1`, maxRetries: 0 });
        const tooBig = await rejection(client.files.create({ file: await file(), purpose: 'assistants' }));
        assert.instance(tooBig, OpenAI.APIError, `${size}: ${String(tooBig)}`);
        assert.is((tooBig as InstanceType<typeof OpenAI.APIError>).status, 413);
      }
    }
  } finally {
    await child.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
