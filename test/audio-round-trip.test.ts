import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { toFile } from 'openai';
import { espeakAvailable } from '../backends/local/espeak-speech.js';
import { pocketsphinxAvailable } from '../backends/local/pocketsphinx-transcription.js';
import { startServer, type TestServer } from './harness.js';

const test = suite('audio round trip: speech, then transcription of it, gives the text back');

async function roundTrip(
  server: TestServer,
  token: string,
  input: string,
  speech: Record<string, unknown>,
  format: 'mp3' | 'wav' | 'opus' | 'flac',
): Promise<string> {
  const client = server.openai(token);
  const audio = await client.audio.speech.create({
    model: 'pro-1',
    voice: 'alloy',
    input,
    response_format: format,
    ...speech,
  });
  const bytes = Buffer.from(await audio.arrayBuffer());
  const transcript = await client.audio.transcriptions.create({
    file: await toFile(bytes, `speech.${format}`),
    model: 'pro-1',
  });
  return transcript.text;
}

test('with the sim engines the text comes back exactly, through every lossy and lossless format', async () => {
  const server = await startServer();
  try {
    const account = await server.account(5);
    const input = 'Good morning! The meeting moved to 10:30, room B — café on the left.';
    for (const format of ['mp3', 'opus', 'wav', 'flac'] as const)
      assert.is(await roundTrip(server, account.token, input, {}, format), input, format);
    assert.is(
      await roundTrip(server, account.token, input, { backend: 'premium', voice: 'shimmer' }, 'mp3'),
      input,
      'premium voice',
    );
  } finally {
    await server.close();
  }
});

test('espeak-ng speaking and pocketsphinx listening hear an easy sentence (skipped where not installed)', async () => {
  if (!espeakAvailable() || !pocketsphinxAvailable()) {
    console.log('  (espeak-ng or pocketsphinx not installed: the local round trip is skipped; .ci/run installs them)');
    return;
  }
  const server = await startServer({ SVC_SPEECH_BACKEND: 'espeak-ng', SVC_TRANSCRIPTION_BACKEND: 'pocketsphinx' });
  try {
    const account = await server.account(5);
    const client = server.openai(account.token);
    const audio = await client.audio.speech
      .create({ model: 'pro-1', voice: 'alloy', input: 'What is the weather like today?', response_format: 'wav' })
      .asResponse();
    assert.is(audio.headers.get('x-svc-engine'), 'espeak-ng');
    const bytes = Buffer.from(await audio.arrayBuffer());
    const transcript = await client.audio.transcriptions.create({
      file: await toFile(bytes, 'speech.wav'),
      model: 'pro-1',
      response_format: 'verbose_json',
      timestamp_granularities: ['word'],
    });
    assert.match(transcript.text, /\bweather\b/);
    assert.ok(transcript.words!.length > 0, 'words get times even from an engine that gives none');
    assert.is(transcript.usage?.type, 'duration');
  } finally {
    await server.close();
  }
});

test.run();
