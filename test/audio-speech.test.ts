import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { APIError } from 'openai';
import { simVoiceSeconds } from '../backends/sim/sim-voice-codec.js';
import { startServer, type TestAccount, type TestServer } from './harness.js';
import { balanceOf, decodeSamples, lastEntry, probe, usdDiff } from './audio-fixtures.js';

const test = suite('audio speech: every format through the official SDK, streamed, billed by characters');
let server: TestServer;
let account: TestAccount;

const TEXT = 'The quick brown fox jumps over the lazy dog.';

test.before(async () => {
  server = await startServer();
  account = await server.account(10);
});
test.after(async () => server.close());

/** Speaks through the SDK; the raw Response, so headers can be read. */
async function speak(body: Record<string, unknown>): Promise<{ bytes: Buffer; headers: Headers }> {
  const response = await server
    .openai(account.token)
    .audio.speech.create({ model: 'pro-1', voice: 'alloy', input: TEXT, ...body });
  return { bytes: Buffer.from(await response.arrayBuffer()), headers: response.headers };
}

const EXPECTED: Record<string, { format: RegExp; codec: string; type: string }> = {
  mp3: { format: /mp3/, codec: 'mp3', type: 'audio/mpeg' },
  opus: { format: /ogg/, codec: 'opus', type: 'audio/ogg; codecs=opus' },
  aac: { format: /aac/, codec: 'aac', type: 'audio/aac' },
  flac: { format: /flac/, codec: 'flac', type: 'audio/flac' },
  wav: { format: /wav/, codec: 'pcm_s16le', type: 'audio/wav' },
};

for (const [format, expected] of Object.entries(EXPECTED)) {
  test(`response_format ${format}: decodes with ffprobe as ${expected.codec}, mono, with its Content-Type`, async () => {
    const { bytes, headers } = await speak({ response_format: format });
    assert.is(headers.get('content-type'), expected.type);
    const info = await probe(bytes);
    assert.match(info.formatName, expected.format);
    assert.is(info.streams[0]?.codecName, expected.codec);
    assert.is(info.streams[0]?.channels, 1);
  });
}

test('pcm is raw 16-bit mono at 24 kHz: exactly the sim voice length', async () => {
  const { bytes, headers } = await speak({ response_format: 'pcm' });
  assert.is(headers.get('content-type'), 'audio/pcm');
  assert.is(bytes.length, Math.round(simVoiceSeconds(TEXT) * 24_000) * 2);
});

test('mp3 is the default and has the duration of what was said (and 1/speed of it at another speed)', async () => {
  const spoken = simVoiceSeconds(TEXT);
  const plain = await probe((await speak({})).bytes);
  assert.is(plain.formatName, 'mp3');
  assert.ok(Math.abs(plain.durationSeconds! - spoken) < 0.15, `${plain.durationSeconds} s for ${spoken} s of speech`);
  const fast = await probe((await speak({ speed: 2 })).bytes);
  assert.ok(Math.abs(fast.durationSeconds! - spoken / 2) < 0.15, `${fast.durationSeconds} s at speed 2`);
  const slow = await probe((await speak({ speed: 0.25, response_format: 'wav' })).bytes);
  assert.ok(Math.abs(slow.durationSeconds! - spoken * 4) < 0.15, `${slow.durationSeconds} s at speed 0.25`);
});

test('the audio is streamed (chunked) with the exact price stated in X-Svc-Price-USD, and that price is charged once', async () => {
  const before = await balanceOf(server, account);
  const res = await fetch(`${server.url}/v1/audio/speech`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'pro-1', input: TEXT }),
  });
  assert.is(res.status, 200);
  assert.is(res.headers.get('transfer-encoding'), 'chunked');
  assert.is(res.headers.get('content-length'), null);
  // 44 characters at the sim's 15,000 micro-USD per 1,000 characters: 660 µ$ cost, 825 µ$ price.
  assert.is(res.headers.get('x-svc-price-usd'), '0.000825');
  assert.is(res.headers.get('x-svc-our-cost-usd'), '0.000660');
  assert.is(res.headers.get('x-svc-billed-units'), '44 input_characters');
  assert.is(res.headers.get('x-svc-engine'), 'sim');
  await res.arrayBuffer();
  assert.is(usdDiff(before, await balanceOf(server, account)), 0.000825);
  const entry = await lastEntry(server, account);
  assert.is(entry?.amount_usd, -0.000825);
  assert.match(entry!.description, /^speech \(standard, sim\)/);
});

test('characters are counted as code points: an emoji is one character', async () => {
  const res = await server.request('POST', '/v1/audio/speech', {
    token: account.token,
    body: { input: 'hi 👋', response_format: 'pcm' },
  });
  assert.is(res.status, 200);
  assert.is(res.headers.get('x-svc-billed-units'), '4 input_characters');
});

test('the SDK custom voice object { id } is accepted, and built-in voice names in any case', async () => {
  const res = await server.request('POST', '/v1/audio/speech', {
    token: account.token,
    body: { input: 'Hi.', voice: 'Coral', response_format: 'pcm' },
  });
  assert.is(res.status, 200);
  const custom = await server.request('POST', '/v1/audio/speech', {
    token: account.token,
    body: { input: 'Hi.', voice: { id: 'voice_00000000000000000000' }, backend: 'premium' },
  });
  assert.is(custom.status, 404, 'an unknown cloned voice, reached through { id }');
});

test('the premium backend speaks built-in voices too, at twice the standard rate, with the same words', async () => {
  const standard = await server.request('POST', '/v1/audio/speech', {
    token: account.token,
    body: { input: TEXT, response_format: 'pcm' },
  });
  const premium = await server.request('POST', '/v1/audio/speech', {
    token: account.token,
    body: { input: TEXT, response_format: 'pcm', backend: 'premium', voice: 'onyx' },
  });
  assert.is(premium.status, 200);
  assert.is(premium.headers.get('x-svc-engine'), 'sim-premium');
  assert.is(Number(premium.headers.get('x-svc-our-cost-usd')), 2 * Number(standard.headers.get('x-svc-our-cost-usd')));
});

test('wav decodes to the sim voice itself (no loss): the samples are the sim speech', async () => {
  const { bytes } = await speak({ response_format: 'wav' });
  const samples = decodeSamples(bytes);
  assert.is(samples.length, Math.round(simVoiceSeconds(TEXT) * 24_000));
});

async function sdkError(body: Record<string, unknown>, token = account.token): Promise<APIError> {
  try {
    await server.openai(token).audio.speech.create({ model: 'pro-1', voice: 'alloy', input: TEXT, ...body });
  } catch (err) {
    assert.instance(err, APIError);
    return err as APIError;
  }
  assert.unreachable('expected an error');
  throw new Error('unreachable');
}

test('bad input is 422 through the SDK, before anything is charged: unknown fields, empty or oversize input, bad format, speed or voice', async () => {
  const before = await balanceOf(server, account);
  const cases: [string, Record<string, unknown>, string][] = [
    ['unknown field', { temperature: 0.5 }, 'temperature'],
    ['empty input', { input: '' }, 'input'],
    ['blank input', { input: '   ' }, 'input'],
    ['oversize input', { input: 'a'.repeat(4097) }, 'input'],
    ['unknown format', { response_format: 'ogg' }, 'response_format'],
    ['speed too high', { speed: 4.5 }, 'speed'],
    ['speed too low', { speed: 0.1 }, 'speed'],
    ['unknown voice', { voice: 'nobody' }, 'voice'],
    ['cloned voice on standard', { voice: 'voice_00000000000000000000' }, 'voice'],
    ['unknown backend', { backend: 'deluxe' }, 'backend'],
    ['sse stream format', { stream_format: 'sse' }, 'stream_format'],
    ['bad language', { language: 'english please' }, 'language'],
  ];
  for (const [what, body, field] of cases) {
    const err = await sdkError(body);
    assert.is(err.status, 422, what);
    const res = await server.request('POST', '/v1/audio/speech', {
      token: account.token,
      body: { input: TEXT, ...body },
    });
    assert.is(res.status, 422, what);
    assert.equal(res.body.detail[0].loc.slice(0, 2), ['body', field], what);
  }
  assert.is(await balanceOf(server, account), before, 'nothing charged');
});

test('4096 characters are accepted (the cap is inclusive)', async () => {
  const res = await server.request('POST', '/v1/audio/speech', {
    token: account.token,
    body: { input: 'a'.repeat(4096), response_format: 'pcm' },
  });
  assert.is(res.status, 200);
  assert.is(res.headers.get('x-svc-billed-units'), '4096 input_characters');
});

test('an unknown model is 404 model_not_found; no token is 401; a zero balance is 402 with nothing charged', async () => {
  const model = await sdkError({ model: 'tts-9' });
  assert.is(model.status, 404);
  assert.is(model.code, 'model_not_found');
  const anonymous = await server.request('POST', '/v1/audio/speech', { body: { input: TEXT } });
  assert.is(anonymous.status, 401);
  const broke = await server.account(0);
  const err = await sdkError({}, broke.token);
  assert.is(err.status, 402);
  assert.is(err.code, 'insufficient_balance');
  assert.is(await balanceOf(server, broke), 0);
});

test('a body that is not JSON is 400, multipart is 415', async () => {
  const bad = await server.request('POST', '/v1/audio/speech', {
    token: account.token,
    raw: '{"input":',
    headers: { 'content-type': 'application/json' },
  });
  assert.is(bad.status, 400);
  const form = new FormData();
  form.append('input', TEXT);
  const res = await fetch(`${server.url}/v1/audio/speech`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.token}` },
    body: form,
  });
  assert.is(res.status, 415);
});

test.run();
