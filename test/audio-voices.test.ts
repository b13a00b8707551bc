import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { toFile } from 'openai';
import { VoiceDeletedObjectSchema, VoiceListObjectSchema, VoiceObjectSchema } from '../protocols/audio-objects.js';
import { startServer, type TestAccount, type TestServer } from './harness.js';
import { assertWire } from './wire-check.js';
import { balanceOf, inContainer, lastEntry, simVoiceWav, toneWav, usdDiff } from './audio-fixtures.js';

const test = suite('audio voices: cloning for a flat fee, the premium backend speaks them, only the owner sees them');
let server: TestServer;
let owner: TestAccount;
let stranger: TestAccount;

test.before(async () => {
  server = await startServer();
  owner = await server.account(10);
  stranger = await server.account(10);
});
test.after(async () => server.close());

const b64 = (bytes: Buffer) => bytes.toString('base64');
const SAMPLES = [b64(toneWav(2, 180)), b64(inContainer(simVoiceWav('a second sample, spoken by the sim'), 'mp3'))];

async function clone(body: Record<string, unknown>, token = owner.token, headers: Record<string, string> = {}) {
  return server.request('POST', '/v1/audio/voices', {
    token,
    body: { name: 'Narrator', samples: SAMPLES, ...body },
    headers,
  });
}

test('a clone answers 201 with a voice_id and the flat fee, charged once; the voice lists, reads and is spoken by the premium backend', async () => {
  const before = await balanceOf(server, owner);
  const res = await clone({ description: 'warm and low', metadata: { project: 'audiobook' } });
  const voice = assertWire(VoiceObjectSchema, res, 201, 'clone');
  assert.match(voice.voice_id, /^voice_[0-9A-Za-z]{20}$/);
  assert.is(voice.id, voice.voice_id);
  assert.is(voice.name, 'Narrator');
  assert.is(voice.description, 'warm and low');
  assert.is(voice.backend, 'premium');
  assert.is(voice.samples, 2);
  assert.ok(voice.sample_seconds > 3);
  assert.is(voice.svc!.price_usd, 1);
  assert.is(voice.svc!.billing.unit, 'clones');
  assert.is(res.headers.get('x-svc-price-usd'), '1.000000');
  assert.is(usdDiff(before, await balanceOf(server, owner)), 1);
  assert.match((await lastEntry(server, owner))!.description, /^voice clone \(premium, sim-premium\)/);

  const list = assertWire(
    VoiceListObjectSchema,
    await server.request('GET', '/v1/audio/voices', { token: owner.token }),
    200,
    'list',
  );
  assert.ok(list.data.some((v) => v.voice_id === voice.voice_id));
  assertWire(
    VoiceObjectSchema,
    await server.request('GET', `/v1/audio/voices/${voice.voice_id}`, { token: owner.token }),
    200,
    'get',
  );

  // The premium backend speaks with it; what it says still reads back exactly.
  const client = server.openai(owner.token);
  const speech = await client.audio.speech
    .create({
      model: 'pro-1',
      input: 'Chapter one.',
      voice: voice.voice_id,
      backend: 'premium',
      response_format: 'wav',
    } as never)
    .asResponse();
  assert.is(speech.headers.get('x-svc-engine'), 'sim-premium');
  const heard = await client.audio.transcriptions.create({
    file: await toFile(Buffer.from(await speech.arrayBuffer()), 'c.wav'),
    model: 'pro-1',
  });
  assert.is(heard.text, 'Chapter one.');
  // The SDK's custom voice object reaches it too.
  const byObject = await server.request('POST', '/v1/audio/speech', {
    token: owner.token,
    body: { input: 'Hi.', voice: { id: voice.voice_id }, backend: 'premium', response_format: 'pcm' },
  });
  assert.is(byObject.status, 200);
});

test('another account cannot see, use or delete the voice: 404 everywhere', async () => {
  const voice = (await clone({})).body;
  assert.is((await server.request('GET', `/v1/audio/voices/${voice.voice_id}`, { token: stranger.token })).status, 404);
  assert.is(
    (await server.request('DELETE', `/v1/audio/voices/${voice.voice_id}`, { token: stranger.token })).status,
    404,
  );
  const speech = await server.request('POST', '/v1/audio/speech', {
    token: stranger.token,
    body: { input: 'Hi.', voice: voice.voice_id, backend: 'premium' },
  });
  assert.is(speech.status, 404);
  assert.is(speech.body.error.code, 'not_found');
  const list = await server.request('GET', '/v1/audio/voices', { token: stranger.token });
  assert.ok(!list.body.data.some((v: { voice_id: string }) => v.voice_id === voice.voice_id));
});

test('deleting a voice removes it: reading or speaking it is 404 after', async () => {
  const voice = (await clone({ name: 'Temporary' })).body;
  const deleted = assertWire(
    VoiceDeletedObjectSchema,
    await server.request('DELETE', `/v1/audio/voices/${voice.voice_id}`, { token: owner.token }),
    200,
    'delete',
  );
  assert.is(deleted.id, voice.voice_id);
  assert.is((await server.request('GET', `/v1/audio/voices/${voice.voice_id}`, { token: owner.token })).status, 404);
  assert.is((await server.request('DELETE', `/v1/audio/voices/${voice.voice_id}`, { token: owner.token })).status, 404);
  assert.is(
    (
      await server.request('POST', '/v1/audio/speech', {
        token: owner.token,
        body: { input: 'Hi.', voice: voice.voice_id, backend: 'premium' },
      })
    ).status,
    404,
  );
});

test('the list pages newest first with OpenAI cursors; a foreign cursor is 404', async () => {
  const account = await server.account(10);
  const ids: string[] = [];
  for (const name of ['one', 'two', 'three']) ids.push((await clone({ name }, account.token)).body.voice_id);
  const first = await server.request('GET', '/v1/audio/voices?limit=2', { token: account.token });
  assert.equal(
    first.body.data.map((v: { name: string }) => v.name),
    ['three', 'two'],
  );
  assert.is(first.body.has_more, true);
  const next = await server.request('GET', `/v1/audio/voices?limit=2&after=${first.body.last_id}`, {
    token: account.token,
  });
  assert.equal(
    next.body.data.map((v: { name: string }) => v.name),
    ['one'],
  );
  assert.is(next.body.has_more, false);
  assert.is((await server.request('GET', `/v1/audio/voices?after=${ids[0]}`, { token: owner.token })).status, 404);
});

/** Power of `hz` in PCM16 24 kHz samples (Goertzel over the whole signal). */
function powerAt(samples: Int16Array, hz: number): number {
  const k = 2 * Math.cos((2 * Math.PI * hz) / 24_000);
  let s1 = 0;
  let s2 = 0;
  for (const x of samples) [s1, s2] = [x + k * s1 - s2, s1];
  return s1 * s1 + s2 * s2 - k * s1 * s2;
}

test('the clone hears the samples: a voice cloned from a 120 Hz sample speaks with a 120 Hz undertone, one from 200 Hz with 200 Hz', async () => {
  for (const [hz, other] of [
    [120, 200],
    [200, 120],
  ] as const) {
    const voice = (await clone({ samples: [b64(toneWav(2, hz))] })).body;
    const speech = await fetch(`${server.url}/v1/audio/speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        input: 'Testing one two three.',
        voice: voice.voice_id,
        backend: 'premium',
        response_format: 'pcm',
      }),
    });
    const pcm = Buffer.from(await speech.arrayBuffer());
    const samples = new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2);
    assert.ok(powerAt(samples, hz) > 20 * powerAt(samples, other), `${hz} Hz clone`);
  }
});

test('samples that do not decode, are too short or too long, or hold only silence are 422 naming the sample, and nothing is charged', async () => {
  const before = await balanceOf(server, owner);
  const cases: [string, unknown, (string | number)[]][] = [
    ['not audio', [b64(Buffer.from('hello, I am not a sound file'))], ['body', 'samples', 0]],
    ['second sample too short', [SAMPLES[0], b64(toneWav(0.5))], ['body', 'samples', 1]],
    ['too long', [b64(toneWav(61, 200, 0.2))], ['body', 'samples', 0]],
    ['silence', [b64(toneWav(2, 200, 0))], ['body', 'samples']],
    ['empty list', [], ['body', 'samples']],
    ['not base64', ['***'], ['body', 'samples', 0]],
    ['eleven samples', Array.from({ length: 11 }, () => SAMPLES[0]), ['body', 'samples']],
  ];
  for (const [what, samples, loc] of cases) {
    const res = await clone({ samples });
    assert.is(res.status, 422, `${what}: ${JSON.stringify(res.body).slice(0, 200)}`);
    assert.equal(res.body.detail[0].loc, loc, what);
  }
  assert.is((await clone({ name: '' })).status, 422, 'empty name');
  assert.is((await clone({ backend: 'standard' })).status, 422, 'cloning is premium');
  assert.is(
    (await server.request('POST', '/v1/audio/voices', { token: owner.token, body: { name: 'x' } })).status,
    422,
    'no samples',
  );
  assert.is(await balanceOf(server, owner), before, 'nothing charged');
});

test('a zero balance is 402 before any decoding', async () => {
  const broke = await server.account(0);
  const res = await clone({}, broke.token);
  assert.is(res.status, 402);
  assert.is(res.body.error.code, 'insufficient_balance');
});

test('an Idempotency-Key makes a retried clone a replay (one fee); the same key with another body is 409', async () => {
  const account = await server.account(10);
  const first = await clone({ name: 'Once' }, account.token, { 'idempotency-key': 'clone-1' });
  assert.is(first.status, 201);
  const again = await clone({ name: 'Once' }, account.token, { 'idempotency-key': 'clone-1' });
  assert.is(again.status, 200);
  assert.is(again.headers.get('idempotent-replayed'), 'true');
  assert.is(again.body.voice_id, first.body.voice_id);
  assert.is(again.body.svc.price_usd, 0, 'a replay charges nothing');
  assert.is(usdDiff(10, await balanceOf(server, account)), 1, 'one fee');
  const other = await clone({ name: 'Twice' }, account.token, { 'idempotency-key': 'clone-1' });
  assert.is(other.status, 409);
});

test.run();
