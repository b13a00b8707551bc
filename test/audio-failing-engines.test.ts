import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import { startServer, type TestAccount, type TestServer } from './harness.js';
import { balanceOf, simVoiceWav, toneWav } from './audio-fixtures.js';

// Every audio route whose engine fails answers the explicit upstream error (503, 504, 502) and
// charges nothing: the sim engines fail on `metadata.sim.fail`, as the chat sim does.
const test = suite('audio failing engines: every route answers 502/503/504 and charges nothing');
let server: TestServer;
let account: TestAccount;

test.before(async () => {
  server = await startServer();
  account = await server.account(10);
});
test.after(async () => server.close());

const FAILURES = [
  ['unavailable', 503, 'upstream_unavailable'],
  ['timeout', 504, 'upstream_timeout'],
  ['error', 502, 'upstream_error'],
] as const;

const ROUTES: [string, string, (fail: string) => Record<string, unknown>][] = [
  ['speech', '/v1/audio/speech', (fail) => ({ input: 'This will not be spoken.', metadata: { sim: { fail } } })],
  [
    'premium speech',
    '/v1/audio/speech',
    (fail) => ({ input: 'Nor this.', backend: 'premium', voice: 'sage', metadata: { sim: { fail } } }),
  ],
  [
    'transcription',
    '/v1/audio/transcriptions',
    (fail) => ({ file_data: simVoiceWav('Not heard.').toString('base64'), metadata: { sim: { fail } } }),
  ],
  [
    'music',
    '/v1/music/generations',
    (fail) => ({ prompt: 'a march', duration_seconds: 2, metadata: { sim: { fail } } }),
  ],
  [
    'sound effect',
    '/v1/audio/sound-effects',
    (fail) => ({ prompt: 'a door slams', duration_seconds: 1, metadata: { sim: { fail } } }),
  ],
  [
    'voice clone',
    '/v1/audio/voices',
    (fail) => ({ name: 'Lost', samples: [toneWav(2, 150).toString('base64')], metadata: { sim: { fail } } }),
  ],
];

for (const [what, path, body] of ROUTES) {
  test(`${what}: a failing engine is an explicit 503, 504 or 502 in the error envelope, and nothing is charged`, async () => {
    const before = await balanceOf(server, account);
    for (const [fail, status, code] of FAILURES) {
      const res = await server.request('POST', path, { token: account.token, body: body(fail) });
      assert.is(res.status, status, `${what} ${fail}: ${JSON.stringify(res.body).slice(0, 200)}`);
      assert.is(res.body.error.code, code);
      assert.match(res.body.error.message, /Nothing was charged/);
      assert.ok(res.headers.get('x-request-id'));
      assert.is(res.headers.get('x-svc-price-usd'), null, 'no price stated for what was not made');
    }
    assert.is(await balanceOf(server, account), before, 'nothing charged');
  });
}

test('the SDK sees a failing speech engine as an InternalServerError with the status, not a broken body', async () => {
  const client = new OpenAI({ apiKey: account.token, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const err = await client.audio.speech
    .create({ model: 'pro-1', voice: 'alloy', input: 'Hi.', metadata: { sim: { fail: 'unavailable' } } } as never)
    .then(
      () => null,
      (error: unknown) => error,
    );
  assert.instance(err, OpenAI.InternalServerError);
  assert.is((err as InstanceType<typeof OpenAI.APIError>).status, 503);
  assert.is((err as InstanceType<typeof OpenAI.APIError>).code, 'upstream_unavailable');
});

test('a failed voice clone leaves no voice behind, and the same request without the script then succeeds and is charged once', async () => {
  const fresh = await server.account(5);
  const samples = [toneWav(2, 150).toString('base64')];
  const failed = await server.request('POST', '/v1/audio/voices', {
    token: fresh.token,
    body: { name: 'Retry', samples, metadata: { sim: { fail: 'unavailable' } } },
  });
  assert.is(failed.status, 503);
  assert.equal((await server.request('GET', '/v1/audio/voices', { token: fresh.token })).body.data, []);
  const made = await server.request('POST', '/v1/audio/voices', {
    token: fresh.token,
    body: { name: 'Retry', samples },
  });
  assert.is(made.status, 201);
  assert.is(await balanceOf(server, fresh), 4);
});

test('a failing sound effect answers no manifest digest and leaves no charge on the ledger', async () => {
  const fresh = await server.account(5);
  const res = await server.request('POST', '/v1/audio/sound-effects', {
    token: fresh.token,
    body: { prompt: 'thunder', metadata: { sim: { fail: 'error' } } },
  });
  assert.is(res.status, 502);
  assert.is(res.headers.get('x-svc-manifest-sha256'), null);
  const usage = await server.request('GET', '/v1/account/usage', { token: fresh.token });
  assert.ok(!usage.body.recent.some((entry: { description: string }) => /sound effect/.test(entry.description)));
});

test.run();
