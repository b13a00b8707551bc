import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SoundEffectManifestSchema } from '../protocols/audio-objects.js';
import { startServer, type TestAccount, type TestServer } from './harness.js';
import { assertWire } from './wire-check.js';
import { balanceOf, decodeSamples, probe, usdDiff } from './audio-fixtures.js';
import { pcm16Samples } from '../backends/pcm16-samples.js';

const test = suite(
  'audio music and sound effects: real audio over HTTP, cost-plus by output seconds, verification manifests',
);
let server: TestServer;
let account: TestAccount;

test.before(async () => {
  server = await startServer();
  account = await server.account(20);
});
test.after(async () => server.close());

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

async function post(
  path: string,
  body: unknown,
  token = account.token,
): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** The strongest frequency between 150 and 1,500 Hz of each 85 ms window (a naive DFT is plenty for a test). */
function dominantPitches(samples: Int16Array, rate: number): number[] {
  const size = 4096;
  const pitches: number[] = [];
  for (let from = 0; from + size <= samples.length; from += size) {
    let best = 0;
    let bestHz = 0;
    for (let hz = 150; hz <= 1500; hz += rate / size) {
      let re = 0;
      let im = 0;
      for (let n = 0; n < size; n += 2) {
        const angle = (2 * Math.PI * hz * n) / rate;
        re += samples[from + n]! * Math.cos(angle);
        im += samples[from + n]! * Math.sin(angle);
      }
      const power = re * re + im * im;
      if (power > best) [best, bestHz] = [power, Math.round(hz)];
    }
    pitches.push(bestHz);
  }
  return pitches;
}

const rmsOf = (x: Int16Array, from = 0, to = x.length) => {
  let sum = 0;
  for (let n = from; n < to; n++) sum += x[n]! * x[n]!;
  return Math.sqrt(sum / Math.max(1, to - from));
};

test('music is MP3 at 48 kHz stereo (ffprobe), of the asked duration, priced in X-Svc-Price-USD and charged exactly', async () => {
  const before = await balanceOf(server, account);
  const res = await post('/v1/music/generations', {
    prompt: 'an upbeat pop tune with a catchy melody',
    duration_seconds: 4,
  });
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'audio/mpeg');
  assert.is(res.headers.get('transfer-encoding'), 'chunked');
  // 4 s at the sim's 60,000 micro-USD per minute: 4,000 µ$ cost, 5,000 µ$ price.
  assert.is(res.headers.get('x-svc-price-usd'), '0.005000');
  assert.is(res.headers.get('x-svc-our-cost-usd'), '0.004000');
  const info = await probe(res.bytes);
  assert.is(info.formatName, 'mp3');
  assert.is(info.streams[0]?.codecName, 'mp3');
  assert.is(info.streams[0]?.sampleRate, 48_000);
  assert.is(info.streams[0]?.channels, 2);
  assert.ok(Math.abs(info.durationSeconds! - 4) < 0.1, `${info.durationSeconds} s`);
  assert.is(usdDiff(before, await balanceOf(server, account)), 0.005);
});

test('the sim composes a melody, not silence: loud enough, and the leading pitch moves', async () => {
  const res = await post('/v1/music/generations', {
    prompt: 'a calm piano melody',
    duration_seconds: 4,
    response_format: 'wav',
  });
  const samples = decodeSamples(res.bytes, 1, 48_000);
  assert.is(samples.length, 4 * 48_000);
  assert.ok(20 * Math.log10(rmsOf(samples) / 32_768) > -30, 'well above silence');
  const pitches = new Set(dominantPitches(samples.subarray(48_000), 48_000));
  assert.ok(pitches.size >= 3, `several pitches: ${[...pitches].join(', ')}`);
});

test('music is deterministic per prompt and seed, and differs between prompts', async () => {
  const body = { prompt: 'sad rainy night jazz', duration_seconds: 2, response_format: 'flac' };
  const a = await post('/v1/music/generations', body);
  const b = await post('/v1/music/generations', body);
  const c = await post('/v1/music/generations', { ...body, seed: 7 });
  const d = await post('/v1/music/generations', { ...body, prompt: 'happy sunny morning' });
  assert.is(sha256(a.bytes), sha256(b.bytes));
  assert.is.not(sha256(a.bytes), sha256(c.bytes));
  assert.is.not(sha256(a.bytes), sha256(d.bytes));
});

test('music defaults to 30 seconds (raw pcm: 48 kHz stereo 16-bit)', async () => {
  const res = await post('/v1/music/generations', { prompt: 'ambient drone', response_format: 'pcm' });
  assert.is(res.status, 200);
  assert.is(res.bytes.length, 30 * 48_000 * 4);
  assert.is(res.headers.get('x-svc-billed-units'), '30 output_seconds');
});

test('music refuses bad input with 422 and a zero balance with 402, charging nothing', async () => {
  const before = await balanceOf(server, account);
  const cases: [string, Record<string, unknown>][] = [
    ['no prompt', { duration_seconds: 2 }],
    ['empty prompt', { prompt: ' ' }],
    ['too short', { prompt: 'x', duration_seconds: 0.5 }],
    ['too long', { prompt: 'x', duration_seconds: 301 }],
    ['unknown format', { prompt: 'x', response_format: 'midi' }],
    ['premium backend', { prompt: 'x', backend: 'premium' }],
    ['prompt too long', { prompt: 'x'.repeat(2001) }],
  ];
  for (const [what, body] of cases) assert.is((await post('/v1/music/generations', body)).status, 422, what);
  assert.is((await post('/v1/music/generations', { prompt: 'x', model: 'musicgen' })).status, 404);
  const broke = await server.account(0);
  assert.is((await post('/v1/music/generations', { prompt: 'x', duration_seconds: 1 }, broke.token)).status, 402);
  assert.is(await balanceOf(server, account), before);
});

test('a sound effect carries its manifest digest; the public manifest route returns bytes whose SHA-256 is that digest and which name the output SHA-256', async () => {
  const before = await balanceOf(server, account);
  const body = { prompt: 'glass shattering on a stone floor', duration_seconds: 2, prompt_influence: 0.6 };
  const res = await post('/v1/audio/sound-effects', body);
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'audio/mpeg');
  assert.is(res.headers.get('x-svc-price-usd'), '0.002500');
  assert.is(usdDiff(before, await balanceOf(server, account)), 0.0025);
  const digest = res.headers.get('x-svc-manifest-sha256')!;
  assert.match(digest, /^[0-9a-f]{64}$/);
  assert.is(res.headers.get('x-svc-manifest-url'), `/v1/audio/sound-effects/manifests/${digest}`);
  const manifestRes = await fetch(`${server.url}/v1/audio/sound-effects/manifests/${digest}`); // no token: anyone can verify
  assert.is(manifestRes.status, 200);
  const text = await manifestRes.text();
  assert.is(sha256(text), digest, 'the digest is of the exact bytes served');
  const manifest = assertWire(SoundEffectManifestSchema, { status: 200, body: JSON.parse(text) }, 200, 'manifest');
  assert.is(manifest.output.sha256, sha256(res.bytes));
  assert.is(manifest.output.bytes, res.bytes.length);
  assert.equal(manifest.request, {
    prompt: body.prompt,
    duration_seconds: 2,
    loop: false,
    prompt_influence: 0.6,
    response_format: 'mp3',
  });
  assert.is(manifest.model_version, '1.1.3');
  assert.is(manifest.engine, 'sim');
  assert.ok(Math.abs(manifest.created_at - Date.now() / 1000) < 60);
  const info = await probe(res.bytes);
  assert.ok(Math.abs(info.durationSeconds! - 2) < 0.1);
});

test('an unknown or malformed manifest digest is 404', async () => {
  assert.is((await fetch(`${server.url}/v1/audio/sound-effects/manifests/${'0'.repeat(64)}`)).status, 404);
  assert.is((await fetch(`${server.url}/v1/audio/sound-effects/manifests/not-a-digest`)).status, 404);
});

/** The biggest step between neighbouring samples within `span` samples of `at` (the seam itself left out). */
function localMaxStep(x: Int16Array, at: number, span: number): number {
  let max = 0;
  for (let n = at - span; n < at + span; n++) if (n !== at - 1) max = Math.max(max, Math.abs(x[n + 1]! - x[n]!));
  return max;
}

test('a loop joins its end to its start without a click: played twice, the seam is no bigger a step than the sound around it, and the edges are not faded', async () => {
  for (const prompt of ['a pure sine tone', 'rain on a tin roof']) {
    const res = await post('/v1/audio/sound-effects', {
      prompt,
      duration_seconds: 1.5,
      loop: true,
      prompt_influence: 1,
      response_format: 'wav',
    });
    const once = decodeSamples(res.bytes, 1, 48_000);
    assert.is(once.length, 1.5 * 48_000);
    const twice = new Int16Array(once.length * 2);
    twice.set(once);
    twice.set(once, once.length);
    const seam = Math.abs(twice[once.length]! - twice[once.length - 1]!);
    assert.ok(
      seam <= localMaxStep(twice, once.length, 480) * 1.1,
      `${prompt}: seam step ${seam}, around it ${localMaxStep(twice, once.length, 480)}`,
    );
    assert.ok(rmsOf(once, 0, 2400) > 0.5 * rmsOf(once), `${prompt}: the start is not faded in`);
    assert.ok(rmsOf(once, once.length - 2400) > 0.5 * rmsOf(once), `${prompt}: the end is not faded out`);
  }
  // Without loop the sound fades in and out instead.
  const plain = decodeSamples(
    (
      await post('/v1/audio/sound-effects', {
        prompt: 'a pure sine tone',
        duration_seconds: 1.5,
        response_format: 'wav',
      })
    ).bytes,
    1,
    48_000,
  );
  assert.ok(Math.abs(plain[0]!) < 50 && Math.abs(plain.at(-1)!) < 50, 'faded at both ends');
});

test('prompt_influence changes the sound; the same request makes the same audio; pcm is 48 kHz mono', async () => {
  const body = { prompt: 'church bell ringing', duration_seconds: 1, response_format: 'pcm' };
  const low = await post('/v1/audio/sound-effects', { ...body, prompt_influence: 0 });
  const high = await post('/v1/audio/sound-effects', { ...body, prompt_influence: 1 });
  const again = await post('/v1/audio/sound-effects', { ...body, prompt_influence: 1 });
  assert.is(high.bytes.length, 48_000 * 2);
  assert.is.not(sha256(low.bytes), sha256(high.bytes));
  assert.is(sha256(high.bytes), sha256(again.bytes));
  assert.ok(rmsOf(pcm16Samples(high.bytes)) > 1000);
  // Same audio, but each manifest is its own (its id and time): two digests.
  assert.is.not(high.headers.get('x-svc-manifest-sha256'), again.headers.get('x-svc-manifest-sha256'));
});

test('sound effects refuse bad input with 422 and a zero balance with 402, charging nothing', async () => {
  const before = await balanceOf(server, account);
  const cases: [string, Record<string, unknown>][] = [
    ['no prompt', {}],
    ['influence above 1', { prompt: 'x', prompt_influence: 1.5 }],
    ['too short', { prompt: 'x', duration_seconds: 0.1 }],
    ['too long', { prompt: 'x', duration_seconds: 31 }],
    ['loop not a boolean', { prompt: 'x', loop: 'yes' }],
    ['unknown format', { prompt: 'x', response_format: 'ogg' }],
  ];
  for (const [what, body] of cases) assert.is((await post('/v1/audio/sound-effects', body)).status, 422, what);
  const broke = await server.account(0);
  assert.is((await post('/v1/audio/sound-effects', { prompt: 'x' }, broke.token)).status, 402);
  assert.is(await balanceOf(server, account), before);
});

test.run();
