import type { ServerResponse } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { toFile } from 'openai';
import { encodeSimVoice, simVoiceSeconds } from '../backends/sim/sim-voice-codec.js';
import { loadConfig, ConfigError } from '../runtime/config.js';
import { startServer, type TestAccount, type TestServer } from './harness.js';
import { refusedUrl, startFakeUpstream, type CapturedRequest, type FakeUpstream } from './fake-upstream.js';
import { balanceOf, probe, simVoiceWav } from './audio-fixtures.js';

const test = suite(
  'audio over an OpenAI-compatible upstream: speech and transcription relayed, failures explicit and free, the key never shown',
);

const KEY = 'sk-upstream-0123456789abcdefSECRET';
let mode: 'ok' | 'unavailable' | 'broken' | 'refused-key' | 'cut' = 'ok';
let upstream: FakeUpstream;
let server: TestServer;
let account: TestAccount;

function answer(request: CapturedRequest, res: ServerResponse): void {
  if (mode === 'unavailable') {
    res
      .writeHead(503, { 'content-type': 'application/json', 'retry-after': '7' })
      .end(JSON.stringify({ error: { message: 'overloaded' } }));
    return;
  }
  if (mode === 'broken') {
    res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'boom' } }));
    return;
  }
  if (mode === 'refused-key') {
    res
      .writeHead(401, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}` } }));
    return;
  }
  if (request.path === '/v1/audio/speech') {
    const pcm = encodeSimVoice(String(request.body.input));
    res.writeHead(200, { 'content-type': 'audio/pcm' });
    // An odd split, so a sample straddles two chunks.
    res.write(pcm.subarray(0, 4801));
    if (mode === 'cut') {
      setImmediate(() => res.destroy());
      return;
    }
    res.end(pcm.subarray(4801));
    return;
  }
  if (request.path === '/v1/audio/transcriptions') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        task: 'transcribe',
        language: 'english',
        duration: 2.5,
        text: ' Hello from upstream. ',
        segments: [{ id: 0, start: 0.1, end: 2.4, text: ' Hello from upstream.' }],
        words: [
          { word: 'Hello', start: 0.1, end: 0.5 },
          { word: 'from', start: 0.6, end: 0.9 },
          { word: 'upstream', start: 1, end: 2.4 },
        ],
      }),
    );
    return;
  }
  res.writeHead(404).end();
}

test.before(async () => {
  upstream = await startFakeUpstream(answer);
  server = await startServer({
    SVC_SPEECH_BACKEND: 'openai-compatible',
    SVC_TRANSCRIPTION_BACKEND: 'openai-compatible',
    SVC_UPSTREAM_BASE_URL: upstream.url,
    SVC_UPSTREAM_API_KEY: KEY,
  });
  account = await server.account(10);
});
test.after(async () => {
  await server.close();
  await upstream.close();
});
test.before.each(() => {
  mode = 'ok';
  upstream.requests.length = 0;
});

test('speech asks the upstream for raw PCM with the model, voice, speed and key, and encodes what streams back', async () => {
  const text = 'Relayed from upstream.';
  const response = await server
    .openai(account.token)
    .audio.speech.create({ model: 'pro-1', voice: 'nova', input: text, speed: 1.5, instructions: 'cheerful' })
    .asResponse();
  assert.is(response.headers.get('x-svc-engine'), 'openai-compatible');
  // 22 characters at OpenAI's tts-1 list price ($15 / 1M): 330 µ$ cost, 413 µ$ price.
  assert.is(response.headers.get('x-svc-price-usd'), '0.000413');
  const info = await probe(Buffer.from(await response.arrayBuffer()));
  assert.is(info.formatName, 'mp3');
  // The upstream applies the speed itself: the audio is as long as what it sent.
  assert.ok(Math.abs(info.durationSeconds! - simVoiceSeconds(text)) < 0.15);
  const sent = upstream.requests[0]!;
  assert.is(sent.path, '/v1/audio/speech');
  assert.equal(sent.body, {
    model: 'tts-1',
    input: text,
    voice: 'nova',
    response_format: 'pcm',
    speed: 1.5,
    instructions: 'cheerful',
  });
  assert.is(sent.headers.authorization, `Bearer ${KEY}`);
});

test('transcription sends the audio up as a WAV file with whisper-1 and verbose_json, and maps its segments and words', async () => {
  const result = await server.openai(account.token).audio.transcriptions.create({
    file: await toFile(simVoiceWav('ignored by the fake'), 'a.wav'),
    model: 'pro-1',
    response_format: 'verbose_json',
    timestamp_granularities: ['word', 'segment'],
    language: 'en',
    prompt: 'Names: Ada.',
  });
  assert.is(result.text, 'Hello from upstream.');
  assert.is(result.language, 'english');
  assert.equal(
    result.words?.map((w) => w.word),
    ['Hello', 'from', 'upstream'],
  );
  assert.is(result.segments?.[0]?.text, 'Hello from upstream.');
  const sent = upstream.requests[0]!;
  assert.is(sent.path, '/v1/audio/transcriptions');
  assert.match(String(sent.headers['content-type']), /^multipart\/form-data; boundary=/);
  const form = String(sent.body);
  for (const part of [
    'name="model"\r\n\r\nwhisper-1',
    'name="response_format"\r\n\r\nverbose_json',
    'name="timestamp_granularities[]"\r\n\r\nword',
    'name="language"\r\n\r\nen',
    'name="prompt"\r\n\r\nNames: Ada.',
    'filename="audio.wav"',
    'RIFF',
  ]) {
    assert.ok(form.includes(part), `the form carries ${part}`);
  }
});

test('an overloaded upstream is 503 with its Retry-After, a broken one 502; nothing is charged either way', async () => {
  const before = await balanceOf(server, account);
  mode = 'unavailable';
  const speech = await server.request('POST', '/v1/audio/speech', { token: account.token, body: { input: 'Hello.' } });
  assert.is(speech.status, 503);
  assert.is(speech.body.error.code, 'upstream_unavailable');
  assert.is(speech.headers.get('retry-after'), '7');
  const transcription = await server.request('POST', '/v1/audio/transcriptions', {
    token: account.token,
    body: { file_data: simVoiceWav('x').toString('base64') },
  });
  assert.is(transcription.status, 503);
  mode = 'broken';
  const broken = await server.request('POST', '/v1/audio/speech', { token: account.token, body: { input: 'Hello.' } });
  assert.is(broken.status, 502);
  assert.is(broken.body.error.code, 'upstream_error');
  assert.is(await balanceOf(server, account), before);
});

test('an upstream that echoes the key in its error never gets it to the client', async () => {
  mode = 'refused-key';
  const res = await server.request('POST', '/v1/audio/speech', { token: account.token, body: { input: 'Hello.' } });
  assert.is(res.status, 502);
  assert.not.match(JSON.stringify(res.body), /SECRET|0123456789abcdef/);
  assert.match(res.body.error.message, /\[redacted\]/);
});

test('an upstream cut mid-stream ends the body early and charges nothing', async () => {
  const before = await balanceOf(server, account);
  mode = 'cut';
  const res = await fetch(`${server.url}/v1/audio/speech`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ input: 'This answer will be cut short by the upstream.', response_format: 'pcm' }),
  });
  assert.is(res.status, 200, 'the first bytes were already out');
  const bytes = await res.arrayBuffer().then(
    (body) => body.byteLength,
    () => -1,
  );
  assert.ok(
    bytes < encodeSimVoice('This answer will be cut short by the upstream.').length,
    'short of the whole audio',
  );
  assert.is(await balanceOf(server, account), before);
});

test('an unreachable upstream is 503; an upstream voice engine without SVC_UPSTREAM_BASE_URL stops the start', async () => {
  const down = await startServer({
    SVC_SPEECH_BACKEND: 'openai-compatible',
    SVC_UPSTREAM_BASE_URL: await refusedUrl(),
  });
  try {
    const broke = await down.account(1);
    const res = await down.request('POST', '/v1/audio/speech', { token: broke.token, body: { input: 'Hello.' } });
    assert.is(res.status, 503);
    assert.is(await balanceOf(down, broke), 1);
  } finally {
    await down.close();
  }
  assert.throws(
    () => loadConfig({ SVC_TRANSCRIPTION_BACKEND: 'openai-compatible' }),
    (err: unknown) =>
      err instanceof ConfigError && /SVC_UPSTREAM_BASE_URL: required when SVC_TRANSCRIPTION_BACKEND/.test(err.message),
  );
});

test.run();
