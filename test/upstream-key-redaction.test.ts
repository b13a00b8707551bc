import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createRedactor, redactedMessage } from '../backends/openai-compatible/upstream-failures.js';
import { chatBody, startServer, type TestAccount, type TestServer } from './harness.js';
import { answerJson, chunk, sendEvent, startFakeUpstream, startSse, type FakeUpstream } from './fake-upstream.js';

const test = suite('upstream key redaction: no part of the key leaks, wherever the upstream puts it');
const KEY = 'sk-Zq8Kf3LmW9xTr2Vb7Np4Hd6Jc1Gs5Ay0QeRtUi';
/** Offsets to place the key at: every one across and past the 300-character message cut. */
const OFFSETS = Array.from({ length: 341 }, (_, i) => i);

let upstream: FakeUpstream;
let server: TestServer;
let account: TestAccount;

/** Mid-stream failures wait for the client to have read the first delta: its release, by offset. */
const clientReadPartial = new Map<number, () => void>();
const readPartial = (offset: number) => new Promise<void>((resolve) => clientReadPartial.set(offset, resolve));

/** The upstream's error message with the key at `offset`. */
const leakyMessage = (offset: number) => `${'e'.repeat(offset)}${KEY} trailing words`;

test.before(async () => {
  upstream = await startFakeUpstream((request, res) => {
    const [mode, at] = String(request.body.messages[0].content).split(':');
    const offset = Number(at);
    if (mode === 'mid') {
      startSse(res);
      const failLater = readPartial(offset);
      sendEvent(res, chunk({ content: 'partial ' }));
      // Only once the client is reading a stream: the failure must arrive as its error event.
      void failLater.then(() => {
        sendEvent(res, { error: { message: leakyMessage(offset) } });
        res.end();
      });
      return;
    }
    answerJson(res, 500, { error: { message: leakyMessage(offset) } });
  });
  server = await startServer({
    SVC_BACKEND: 'openai-compatible',
    SVC_UPSTREAM_BASE_URL: upstream.url,
    SVC_UPSTREAM_API_KEY: KEY,
    SVC_UPSTREAM_MODEL: 'upstream-model',
    SVC_CHAT_CACHE_TTL_S: '0',
  });
  account = await server.account(5);
});
test.after(async () => {
  await server.close();
  await upstream.close();
});

/** Fails when any 8 consecutive characters of the key appear in `text`. */
function assertNoKeyFragment(text: string, where: string): void {
  for (let at = 0; at + 8 <= KEY.length; at++) {
    const fragment = KEY.slice(at, at + 8);
    assert.not.ok(text.includes(fragment), `${where}: key fragment "${fragment}" leaked in ${text.slice(0, 400)}`);
  }
}

test('redaction happens before the cut, at every offset (regression: the first 37 characters leaked past offset 250)', () => {
  const redact = createRedactor(KEY);
  for (const offset of OFFSETS) {
    const message = redactedMessage(`upstream answered HTTP 500: ${leakyMessage(offset)}`, redact);
    assertNoKeyFragment(message, `offset ${offset}`);
    assert.ok(message.length <= 301, `offset ${offset}: ${message.length} characters`);
  }
});

test('a fragment of the key the upstream itself cut off is masked too', () => {
  const redact = createRedactor(KEY);
  for (let length = 8; length <= KEY.length; length++) {
    assertNoKeyFragment(redact(`bad key ${KEY.slice(0, length)}`), `prefix ${length}`);
    assertNoKeyFragment(redact(`bad key ${KEY.slice(KEY.length - length)} end`), `suffix ${length}`);
  }
  assert.is(redact('nothing secret here'), 'nothing secret here');
});

test('the 502 body never carries any part of the key, at every offset', async () => {
  for (const offset of OFFSETS) {
    const res = await server.request('POST', '/v1/chat/completions', {
      token: account.token,
      body: chatBody(`http:${offset}`),
    });
    assert.is(res.status, 502);
    assert.is(res.body.error.code, 'upstream_error');
    assertNoKeyFragment(JSON.stringify(res.body), `502 at offset ${offset}`);
  }
});

test("a stream's error event never carries any part of the key, at every offset", async () => {
  for (const offset of OFFSETS.filter((o) => o % 5 === 0 || o > 240)) {
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(chatBody(`mid:${offset}`, { stream: true })),
    });
    let text = '';
    const decoder = new TextDecoder();
    for await (const piece of res.body!) {
      text += decoder.decode(piece as Uint8Array, { stream: true });
      if (text.includes('partial')) clientReadPartial.get(offset)?.();
    }
    assert.match(text, /partial/, text.slice(0, 300));
    assert.match(text, /error/);
    assertNoKeyFragment(text, `stream at offset ${offset}`);
  }
});

test.run();
