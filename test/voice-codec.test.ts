import { getEventListeners } from 'node:events';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pcm16Bytes, pcm16Samples, pcm16Wav, resamplePcm16 } from '../backends/pcm16-samples.js';
import { seedFromBytes, type SimRandom } from '../backends/sim/sim-media-seed.js';
import { simPacer } from '../backends/sim/sim-pacer.js';
import { createSimSpeechBackend } from '../backends/sim/sim-speech.js';
import { createSimTranscriptionBackend } from '../backends/sim/sim-transcription.js';
import { decodeSimVoice, encodeSimVoice, simVoiceChunks, simVoiceSeconds } from '../backends/sim/sim-voice-codec.js';
import type { SpeechBackend } from '../backends/speech.js';

const test = suite('sim voice codec: what the sim says, the sim transcriber hears exactly');
const signal = new AbortController().signal;
const transcription = createSimTranscriptionBackend();

function samples(text: string): Int16Array {
  return pcm16Samples(encodeSimVoice(text));
}

/** Gaussian white noise at `dbfs` RMS, from a seeded source so every run hears the same noise. */
function noise(length: number, dbfs: number, random: SimRandom): Int16Array {
  const sigma = 32_768 * 10 ** (dbfs / 20);
  return Int16Array.from({ length }, () =>
    Math.round(sigma * Math.sqrt(-2 * Math.log(1 - random.next())) * Math.cos(2 * Math.PI * random.next())),
  );
}

/** `parts` laid out at the given sample offsets over `length` samples of noise (or silence). */
function mix(length: number, parts: [Int16Array, number][], background: Int16Array | null = null): Int16Array {
  const out = new Int16Array(length);
  for (const [part, at] of parts) out.set(part, at);
  if (background)
    for (let i = 0; i < length; i++) out[i] = Math.max(-32_768, Math.min(32_767, out[i]! + background[i]!));
  return out;
}

function dbfs(pcm: Int16Array): number {
  let sum = 0;
  for (const sample of pcm) sum += sample * sample;
  return 20 * Math.log10(Math.sqrt(sum / pcm.length) / 32_768);
}

async function speak(backend: SpeechBackend, text: string): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of backend.synthesize({ text, voice: 'alloy', signal })) chunks.push(chunk);
  return chunks;
}

test('ASCII, accented, CJK, emoji and empty text round-trip exactly', () => {
  for (const text of [
    'Hello, world!',
    '¡Adiós! Ça va? Straße',
    '再见，明天见。',
    'مرحبا',
    'emoji 👋🏽 ok',
    '',
    ' padded  spaces ',
    'line\nbreak',
  ]) {
    assert.is(decodeSimVoice(samples(text)), text, JSON.stringify(text));
  }
});

test('the signal is speech-loud (about -20 dBFS) and takes 60 ms per UTF-8 byte plus 360 ms of framing', () => {
  const pcm = samples('what is the weather like today?');
  assert.ok(Math.abs(dbfs(pcm) + 20) < 0.5, `${dbfs(pcm)} dBFS`);
  assert.is(pcm.length / 24_000, simVoiceSeconds('what is the weather like today?'));
  assert.is(simVoiceSeconds(''), 0.36);
  assert.is(simVoiceSeconds('再见'), 0.36 + 6 * 0.06);
  assert.ok(
    pcm.some((sample) => Math.abs(sample) > 4000),
    'real amplitude',
  );
});

test('an utterance is found at any sample offset in white noise at -50 dBFS', () => {
  const random = seedFromBytes(Buffer.from('offsets'));
  const text = 'Could you book a table for two?';
  const voice = samples(text);
  for (let trial = 0; trial < 25; trial++) {
    const at = Math.floor(random.next() * 24_000);
    const length = at + voice.length + Math.floor(random.next() * 12_000);
    assert.is(decodeSimVoice(mix(length, [[voice, at]], noise(length, -50, random))), text, `at sample ${at}`);
  }
});

test('read exactly in white noise at -30 dBFS and beside a steady tone that misleads the zero crossings', () => {
  const random = seedFromBytes(Buffer.from('loud noise'));
  const text = 'Could you book a table for two?';
  const voice = samples(text);
  for (let trial = 0; trial < 5; trial++) {
    const at = Math.floor(random.next() * 24_000);
    const length = at + voice.length + 6000;
    assert.is(decodeSimVoice(mix(length, [[voice, at]], noise(length, -30, random))), text, `at sample ${at}`);
  }
  // A 3.3 kHz tone at half the voice's amplitude adds zero crossings to every symbol: the symbols
  // are then mostly read by all 16 filters, not the one tone the crossings point to, and come out right.
  for (const [hz, share] of [
    [3300, 0.5],
    [1234, 0.8],
    [650, 0.7],
  ] as const) {
    const amplitude = 0.1 * 32_768 * Math.SQRT2 * share;
    const tone = Int16Array.from({ length: voice.length + 6000 }, (_, n) =>
      Math.round(amplitude * Math.sin((2 * Math.PI * hz * n) / 24_000)),
    );
    assert.is(decodeSimVoice(mix(tone.length, [[voice, 3000]], tone)), text, `beside ${hz} Hz`);
  }
});

test('several utterances, with silence between or back to back, are joined by a space unless one side has it', () => {
  const first = samples('first part');
  const second = samples('¿segunda? 再见');
  const apart = mix(first.length + second.length + 40_000, [
    [first, 7001],
    [second, 7001 + first.length + 12_345],
  ]);
  assert.is(decodeSimVoice(apart), 'first part ¿segunda? 再见');
  // Sentences spoken one after another as the realtime path does: the seam keeps its single space.
  const sentences = ['Hello there. ', 'How are you?'].map(samples);
  assert.is(
    decodeSimVoice(
      mix(sentences[0]!.length + sentences[1]!.length, [
        [sentences[0]!, 0],
        [sentences[1]!, sentences[0]!.length],
      ]),
    ),
    'Hello there. How are you?',
  );
});

test('silence, noise, plain tones and speech-free audio hold no message', () => {
  const random = seedFromBytes(Buffer.from('garbage'));
  assert.is(decodeSimVoice(new Int16Array(0)), null);
  assert.is(decodeSimVoice(new Int16Array(240_000)), null, 'ten seconds of silence');
  assert.is(decodeSimVoice(noise(240_000, -20, random)), null, 'loud white noise');
  const tone = Int16Array.from({ length: 48_000 }, (_, n) =>
    Math.round(5000 * Math.sin((2 * Math.PI * 800 * n) / 24_000)),
  );
  assert.is(decodeSimVoice(tone), null, 'a steady tone on a sync frequency');
  assert.is(
    decodeSimVoice(pcm16Samples(Buffer.from('this is text, not audio at all'.repeat(200)))),
    null,
    'bytes of text',
  );
});

test('a cut-off or corrupted utterance is refused, and the good one beside it still read', () => {
  const voice = samples('checksum me');
  assert.is(decodeSimVoice(voice.subarray(0, voice.length - 2000)), null, 'missing its checksum');
  const corrupted = Int16Array.from(voice);
  corrupted.set(samples('x').subarray(4 * 720, 5 * 720), 10 * 720); // one payload symbol swapped
  assert.is(decodeSimVoice(corrupted), null, 'one symbol changed');
  const good = samples('still here');
  assert.is(
    decodeSimVoice(
      mix(corrupted.length + good.length + 5000, [
        [corrupted, 0],
        [good, corrupted.length + 5000],
      ]),
    ),
    'still here',
  );
});

test('an utterance followed by the start of another, cut anywhere, reads as the first alone', () => {
  const first = samples('first');
  const second = samples('second');
  for (let tail = 0; tail <= 4000; tail += 97) {
    for (const gap of [0, 130]) {
      const audio = mix(first.length + gap + tail, [
        [first, 0],
        [second.subarray(0, tail), first.length + gap],
      ]);
      assert.is(decodeSimVoice(audio), 'first', `${tail} samples of the second after ${gap}`);
    }
  }
});

test('rendering in chunks gives the same audio as all at once, in 4800-byte pieces', () => {
  const text = 'The quick brown fox jumps over the lazy dog.';
  const chunks = [...simVoiceChunks(text, 4800)];
  assert.ok(chunks.length > 10, `${chunks.length} chunks`);
  for (const chunk of chunks.slice(0, -1)) assert.is(chunk.length, 4800);
  assert.is(chunks.at(-1)!.length % 2, 0);
  assert.equal(Buffer.concat(chunks), encodeSimVoice(text));
});

test('sim speech streams 100 ms chunks that the sim transcriber turns back into the text, as PCM or WAV', async () => {
  const speech = createSimSpeechBackend();
  assert.is(speech.name, 'sim');
  for (const text of ['what is the weather like today?', '¡Adiós!', '再见']) {
    const chunks = await speak(speech, text);
    assert.ok(chunks.length > 1, `${text}: ${chunks.length} chunks`);
    assert.ok(chunks.every((chunk) => chunk.length % 2 === 0 && chunk.length <= 4800));
    const pcm = Buffer.concat(chunks);
    const heard = await transcription.transcribe({ audio: pcm, format: 'pcm16', signal });
    assert.equal(heard, { text, durationSeconds: pcm.length / 48_000 });
    const wav24 = pcm16Wav(pcm16Samples(pcm), 24_000);
    assert.is((await transcription.transcribe({ audio: wav24, format: 'wav', signal })).text, text, '24 kHz WAV');
    const wav16 = pcm16Wav(resamplePcm16(pcm16Samples(pcm), 24_000, 16_000), 16_000);
    assert.is((await transcription.transcribe({ audio: wav16, format: 'wav', signal })).text, text, '16 kHz WAV');
  }
});

test('the sim transcriber still makes up words for audio that is no sim voice', async () => {
  const silence = pcm16Bytes(new Int16Array(48_000));
  const heard = await transcription.transcribe({ audio: silence, format: 'pcm16', signal });
  assert.is(heard.durationSeconds, 2);
  assert.is(heard.text.split(' ').length, 5);
});

test('sim speech yields the first chunk before rendering the rest, and says nothing for no text', async () => {
  const iterator = createSimSpeechBackend()
    .synthesize({ text: 'a long sentence '.repeat(200), voice: 'echo', signal })
    [Symbol.asyncIterator]();
  const first = await iterator.next();
  assert.is(first.done, false);
  assert.is(first.value?.length, 4800);
  await iterator.return?.();
  assert.equal(await speak(createSimSpeechBackend(), ''), []);
});

test('sim speech stops at abort, paced or not, with the abort reason', async () => {
  const reason = new Error('caller went away');
  for (const realTime of [false, true]) {
    const controller = new AbortController();
    const iterator = createSimSpeechBackend({ realTime })
      .synthesize({ text: 'keep talking '.repeat(50), voice: 'alloy', signal: controller.signal })
      [Symbol.asyncIterator]();
    assert.is((await iterator.next()).done, false);
    controller.abort(reason);
    try {
      await iterator.next();
      assert.unreachable('expected the abort reason');
    } catch (err) {
      assert.is(err, reason, `realTime ${realTime}`);
    }
  }
});

test('paced sim speech waits on the shared pacer, with one abort listener per stream, removed at the end', async () => {
  const controller = new AbortController();
  const started = performance.now();
  const iterator = createSimSpeechBackend({ realTime: true })
    .synthesize({ text: 'keep talking', voice: 'alloy', signal: controller.signal })
    [Symbol.asyncIterator]();
  assert.is((await iterator.next()).done, false, 'the first chunk at once');
  const second = iterator.next();
  assert.is(simPacer.timers, 1, 'the wait is a pacer timer');
  assert.is(getEventListeners(controller.signal, 'abort').length, 1);
  assert.is((await second).done, false);
  assert.ok(performance.now() - started >= 99, 'the second chunk when the first has played (100 ms)');
  await iterator.next();
  assert.is(getEventListeners(controller.signal, 'abort').length, 1, 'still one listener after several waits');
  await iterator.return!(undefined);
  assert.is(getEventListeners(controller.signal, 'abort').length, 0);
});

test.run();
