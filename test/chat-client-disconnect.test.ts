import { connect } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { COMPLETION_MACHINE, type CompletionHandle } from '../actors/chat/completion-run.js';
import { chatBody, startServer, type TestAccount, type TestServer } from './harness.js';
import { startFakeUpstream, type CapturedRequest, type FakeUpstream } from './fake-upstream.js';

const test = suite('chat completions and responses: a client that disconnects cancels the upstream call');

let upstream: FakeUpstream;
let server: TestServer;
let account: TestAccount;
/** The upstream holds every request open (never answers) and says when one arrived. */
let arrived: (request: CapturedRequest) => void = () => {};

test.before(async () => {
  upstream = await startFakeUpstream((request) => arrived(request));
  server = await startServer({
    SVC_BACKEND: 'openai-compatible',
    SVC_UPSTREAM_BASE_URL: upstream.url,
    SVC_UPSTREAM_API_KEY: 'sk-upstream-key-0123456789',
    SVC_UPSTREAM_MODEL: 'upstream-model',
    SVC_CHAT_CACHE_TTL_S: '0',
  });
  account = await server.account(5);
});
test.after(async () => {
  await server.close();
  await upstream.close();
});

/** Sends `body` on a raw socket, waits until the upstream has the call, then closes the socket. */
async function sendAndLeave(path: string, body: Record<string, unknown>): Promise<CapturedRequest> {
  const reached = new Promise<CapturedRequest>((resolve) => (arrived = resolve));
  const text = JSON.stringify(body);
  const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
  socket.on('error', () => {});
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${account.token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  );
  const request = await reached;
  socket.destroy();
  return request;
}

const held = () => server.app.deps.services.ledger.state(account.id).held;

const cases = [
  { path: '/v1/chat/completions', body: (stream: boolean) => chatBody('wait for me', { max_tokens: 20, stream }) },
  {
    path: '/v1/responses',
    body: (stream: boolean) => ({ model: 'pro-1', input: 'wait for me', max_output_tokens: 20, store: false, stream }),
  },
];

for (const { path, body } of cases)
  for (const stream of [false, true]) {
    test(`${path}, ${stream ? 'streaming' : 'non-streaming'}: the upstream request is cut, the run cancelled, the hold let go`, async () => {
      const request = await sendAndLeave(path, body(stream));
      const live = server.app.deps.actors
        .list(COMPLETION_MACHINE)
        .map((entry) => entry.handle as CompletionHandle)
        .find((handle) => handle.state().active);
      assert.ok(live, 'the run is active while the upstream holds the call');
      assert.ok(held() > 0, 'its worst case is held');
      // The disconnect reaches the run, which aborts the upstream call: the upstream sees it cut.
      assert.equal(await request.closed, { finished: false });
      await live.done;
      assert.is(live.state().name, 'cancelled');
      assert.is(held(), 0);
    });
  }

test.run();
