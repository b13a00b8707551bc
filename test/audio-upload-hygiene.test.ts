import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI, { toFile } from 'openai';
import { startChildServer, type ChildServer } from './child-server.js';
import { ADMIN_KEY, tempDataDir } from './harness.js';
import { simVoiceWav } from './audio-fixtures.js';

// Issue 15, item 7: the SDK's `audio.transcriptions.create` used to fail with a connection error
// (EPIPE) when the server answered early with `Connection: close` while the multipart body was
// still on its way. Early answers (unknown route, 401, 402, 413) must reach the SDK as HTTP
// errors. Only across processes does such a close reach the client as EPIPE, hence a child server.
const test = suite('audio upload hygiene: early errors reach the SDK mid-upload as HTTP errors, not resets');
let child: ChildServer;
let dataDir: string;
let token: string;
let brokeToken: string;

async function createAccount(email: string, creditUsd: number): Promise<string> {
  const res = await fetch(`${child.url}/admin/v1/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(
      creditUsd > 0
        ? { email, password: 'correct horse battery', credit_usd: creditUsd }
        : { email, password: 'correct horse battery' },
    ),
  });
  return ((await res.json()) as { api_token: { token: string } }).api_token.token;
}

test.before(async () => {
  dataDir = tempDataDir();
  child = await startChildServer({ SVC_DATA_DIR: dataDir, SVC_ADMIN_KEY: ADMIN_KEY });
  token = await createAccount('hygiene@example.com', 1);
  brokeToken = await createAccount('broke@example.com', 0);
});
test.after(async () => {
  // undefined when the child failed to start: the before hook's error is the one to see.
  await (child as ChildServer | undefined)?.kill('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
});

const client = (apiKey: string, path = '/v1') => new OpenAI({ apiKey, baseURL: `${child.url}${path}`, maxRetries: 0 });
const upload = async (size: number) => toFile(Buffer.alloc(size, 7), 'meeting.wav');
const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (err: unknown) => err,
  );

for (const size of [200_000, 3_000_000, 20_000_000]) {
  test(`a ${size.toLocaleString('en-US')}-byte transcription upload to an unknown route is NotFoundError, with a bad token AuthenticationError, with no balance 402`, async () => {
    const lost = await rejection(
      client(token, '/v1/not-a-prefix').audio.transcriptions.create({ file: await upload(size), model: 'pro-1' }),
    );
    assert.instance(lost, OpenAI.NotFoundError, String(lost));
    const stranger = await rejection(
      client('sk-svc-not-a-real-token').audio.transcriptions.create({ file: await upload(size), model: 'pro-1' }),
    );
    assert.instance(stranger, OpenAI.AuthenticationError, String(stranger));
    const broke = await rejection(
      client(brokeToken).audio.transcriptions.create({ file: await upload(size), model: 'pro-1' }),
    );
    assert.instance(broke, OpenAI.APIError, String(broke));
    assert.is((broke as InstanceType<typeof OpenAI.APIError>).status, 402);
    assert.is((broke as InstanceType<typeof OpenAI.APIError>).code, 'insufficient_balance');
  });
}

test('a transcription upload over 25 MiB is 413 payload_too_large through the SDK, not a reset', async () => {
  const tooBig = await rejection(
    client(token).audio.transcriptions.create({ file: await upload(26 * 1024 * 1024), model: 'pro-1' }),
  );
  assert.instance(tooBig, OpenAI.APIError, String(tooBig));
  assert.is((tooBig as InstanceType<typeof OpenAI.APIError>).status, 413);
  assert.is((tooBig as InstanceType<typeof OpenAI.APIError>).code, 'payload_too_large');
});

test('a 20 MB upload with a bad option is UnprocessableEntityError naming it; one that is not audio is 422 on file', async () => {
  const badOption = await rejection(
    client(token).audio.transcriptions.create({
      file: await upload(20_000_000),
      model: 'pro-1',
      response_format: 'xml',
    } as never),
  );
  assert.instance(badOption, OpenAI.UnprocessableEntityError, String(badOption));
  assert.is((badOption as InstanceType<typeof OpenAI.APIError>).param, 'response_format');
  const notAudio = await rejection(
    client(token).audio.transcriptions.create({ file: await upload(20_000_000), model: 'pro-1' }),
  );
  assert.instance(notAudio, OpenAI.UnprocessableEntityError, String(notAudio));
  assert.is((notAudio as InstanceType<typeof OpenAI.APIError>).param, 'file');
});

test('after all that the connection pool still works: a real transcription succeeds on the same server', async () => {
  const result = await client(token).audio.transcriptions.create({
    file: await toFile(simVoiceWav('Still here.'), 'ok.wav'),
    model: 'pro-1',
  });
  assert.is(result.text, 'Still here.');
});

test.run();
