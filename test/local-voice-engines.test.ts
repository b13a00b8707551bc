import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createSpeechBackend, createTranscriptionBackend } from '../backends/create-voice-backends.js';
import { TerminalError } from '../backends/errors.js';
import { createEspeakSpeechBackend, espeakAvailable } from '../backends/local/espeak-speech.js';
import { espeakVoice, parseEspeakLanguages } from '../backends/local/espeak-voice.js';
import {
  createPocketsphinxTranscriptionBackend,
  pocketsphinxAvailable,
} from '../backends/local/pocketsphinx-transcription.js';
import { pcm16Samples, pcm16Wav } from '../backends/pcm16-samples.js';
import type { SpeechBackend, SpeechRequest } from '../backends/speech.js';
import { UnreadableMediaError } from '../backends/unreadable-media-error.js';
import { WavStreamDecoder } from '../backends/wav-stream-decoder.js';
import { ConfigError } from '../runtime/config.js';

const test = suite(
  'local voice engines: espeak-ng speaks 24 kHz PCM, pocketsphinx hears it (each skipped when not installed)',
);
const signal = new AbortController().signal;
const hasEspeak = espeakAvailable();
const hasPocketsphinx = pocketsphinxAvailable();
const scratch = mkdtempSync(join(tmpdir(), 'voice-engines-'));

function skipped(engine: string, what: string): true {
  console.log(`  (${engine} not installed: ${what} skipped)`);
  return true;
}

async function speak(backend: SpeechBackend, request: Partial<SpeechRequest> & { text: string }): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of backend.synthesize({ voice: 'alloy', signal, ...request })) chunks.push(chunk);
  return chunks;
}

async function rejectsWith(promise: Promise<unknown>, type: new (...args: never[]) => Error): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    assert.instance(err, type);
    return err as Error;
  }
  assert.unreachable(`expected ${type.name}`);
  throw new Error('unreachable');
}

/** A stand-in engine: a shell script, so failure paths are tested with or without the real one. */
function fakeEngine(name: string, script: string): string {
  const path = join(scratch, name);
  writeFileSync(path, `#!/bin/sh\n${script}\n`);
  chmodSync(path, 0o755);
  return path;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits for a condition another process brings about (polled; fails after 5 s). */
async function eventually(condition: () => boolean): Promise<void> {
  for (let tries = 0; tries < 250; tries++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.unreachable('condition never held');
}

function dbfs(pcm: Int16Array): number {
  let sum = 0;
  for (const sample of pcm) sum += sample * sample;
  return 20 * Math.log10(Math.sqrt(sum / pcm.length) / 32_768);
}

test.after(() => rmSync(scratch, { recursive: true, force: true }));

test('OpenAI voices map to espeak-ng voices by language, with male and female variants', () => {
  const installed = new Set(['en-us', 'es', 'fr-fr', 'fr', 'cmn', 'zh', 'pt', 'pt-br', 'de', 'ar']);
  assert.is(espeakVoice('alloy', null, installed), 'en-us');
  assert.is(espeakVoice('coral', 'es', installed), 'es+f3');
  assert.is(espeakVoice('echo', 'fr', installed), 'fr-fr+m1');
  assert.is(espeakVoice('cedar', 'zh', installed), 'cmn+m7');
  assert.is(espeakVoice('marin', 'pt-BR', installed), 'pt-br+f1');
  assert.is(espeakVoice('shimmer', 'ja', installed), 'en-us+f4', 'not installed: English');
  assert.is(espeakVoice('alloy', 'de', new Set()), 'de', 'no listing: trust the language');
  assert.is(espeakVoice('someone-else', 'x; rm -rf /', installed), 'en-us', 'odd input stays a plain voice name');
  const listed = parseEspeakLanguages(
    'Pty Language Age/Gender VoiceName File Other Languages\n 5  cmn  --/M  Chinese  sit/cmn  (zh-cmn 5)(zh 5)\n 2  en-us  --/M  English  gmw/en-US  (en 3)\n',
  );
  assert.equal([...listed].sort(), ['cmn', 'en', 'en-us', 'zh', 'zh-cmn']);
});

test('the WAV stream decoder reads a header split across pieces and samples split mid-byte', () => {
  const tone = Int16Array.from({ length: 2205 }, (_, n) =>
    Math.round(8000 * Math.sin((2 * Math.PI * 441 * n) / 22_050)),
  );
  const wav = pcm16Wav(tone, 22_050);
  const decoder = new WavStreamDecoder(24_000);
  const out: Buffer[] = [];
  for (let at = 0; at < wav.length; at += 37) out.push(decoder.push(wav.subarray(at, at + 37)));
  const pcm = Buffer.concat(out);
  assert.ok(out.every((piece) => piece.length % 2 === 0));
  assert.ok(Math.abs(pcm.length / 2 - 2400) <= 2, `${pcm.length / 2} samples for 0.1 s`);
  assert.throws(() => new WavStreamDecoder(24_000).push(Buffer.alloc(5000, 1)));
});

test('espeak-ng speaks English as 24 kHz PCM of plausible length and loudness, in several chunks', async () => {
  if (!hasEspeak && skipped('espeak-ng', 'real synthesis')) return;
  const text = 'What is the weather like today? I would like to know before I go out for a long walk along the river.';
  const chunks = await speak(createEspeakSpeechBackend(), { text, language: 'en' });
  assert.ok(chunks.length > 1, `${chunks.length} chunks`);
  assert.ok(chunks.every((chunk) => chunk.length % 2 === 0));
  const pcm = pcm16Samples(Buffer.concat(chunks));
  const seconds = pcm.length / 24_000;
  assert.ok(seconds > 3 && seconds < 12, `${seconds} s`);
  assert.ok(dbfs(pcm) > -35, `${dbfs(pcm)} dBFS`);
  // Exactly espeak-ng's own output, resampled: 24 kHz, not its native rate.
  const native = execFileSync('espeak-ng', ['--stdout', '-v', 'en-us', text]);
  const nativeSamples = (native.length - 44) / 2;
  assert.ok(
    Math.abs(pcm.length - (nativeSamples * 24_000) / 22_050) < 3,
    `${pcm.length} vs ${nativeSamples} at 22,050 Hz`,
  );
});

test('espeak-ng speaks other languages and voices, and a text that looks like an option is only text', async () => {
  if (!hasEspeak && skipped('espeak-ng', 'other languages')) return;
  const speech = createSpeechBackend('espeak-ng');
  assert.is(speech.name, 'espeak-ng');
  for (const [text, language, voice] of [
    ['¡Hola! ¿Cómo estás?', 'es', 'coral'],
    ['你好，世界', 'zh', 'echo'],
    ['-v xx --help', 'xx', 'sage'],
  ] as const) {
    const pcm = Buffer.concat(await speak(speech, { text, language, voice }));
    assert.ok(pcm.length > 24_000, `${text}: ${pcm.length} bytes`);
  }
  assert.equal(await speak(speech, { text: '   ' }), [], 'nothing to say');
});

test('abort stops espeak-ng with the abort reason', async () => {
  if (!hasEspeak && skipped('espeak-ng', 'abort')) return;
  const controller = new AbortController();
  const reason = new Error('barge-in');
  const iterator = createEspeakSpeechBackend()
    .synthesize({ text: 'This goes on and on. '.repeat(200), voice: 'ash', signal: controller.signal })
    [Symbol.asyncIterator]();
  assert.is((await iterator.next()).done, false);
  controller.abort(reason);
  try {
    await iterator.next();
    assert.unreachable('expected the abort reason');
  } catch (err) {
    assert.is(err, reason);
  }
});

test('abort kills a speech engine that is still running', async () => {
  const pidFile = join(scratch, 'slow.pid');
  // A WAV header, then nothing for a minute: `exec` so the PID written is the one we must kill.
  const slow = fakeEngine(
    'slow-espeak',
    `[ "$1" = "--voices" ] && exit 0\necho $$ > '${pidFile}'\nprintf 'RIFF\\044\\0\\0\\0WAVEfmt \\020\\0\\0\\0\\001\\0\\001\\0\\042\\126\\0\\0\\104\\254\\0\\0\\002\\0\\020\\0data\\0\\0\\0\\0\\001\\002\\003\\004'\nexec sleep 60`,
  );
  const controller = new AbortController();
  const iterator = createEspeakSpeechBackend({ binary: slow })
    .synthesize({ text: 'hello', voice: 'alloy', signal: controller.signal })
    [Symbol.asyncIterator]();
  const first = await iterator.next();
  assert.is(first.value?.length, 4, 'the two samples after the header (22,050 Hz to 24 kHz)');
  const pending = iterator.next();
  controller.abort();
  await rejectsWith(pending, Error);
  await eventually(() => !isRunning(Number(readFileSync(pidFile, 'utf8'))));
});

test('a missing espeak-ng, a failing one or one that writes no WAV is a TerminalError', async () => {
  assert.is(espeakAvailable('/nonexistent/espeak-ng'), false);
  await rejectsWith(
    speak(createEspeakSpeechBackend({ binary: '/nonexistent/espeak-ng' }), { text: 'hello' }),
    TerminalError,
  );
  const failing = fakeEngine(
    'failing-espeak',
    '[ "$1" = "--voices" ] && exit 0\necho "Error: voice does not exist" >&2\nexit 1',
  );
  await rejectsWith(speak(createEspeakSpeechBackend({ binary: failing }), { text: 'hello' }), TerminalError);
  const chatty = fakeEngine('chatty-espeak', '[ "$1" = "--voices" ] && exit 0\nhead -c 6000 /dev/zero | tr "\\0" "x"');
  await rejectsWith(speak(createEspeakSpeechBackend({ binary: chatty }), { text: 'hello' }), TerminalError);
});

test('pocketsphinx hears roughly the words espeak-ng said', async () => {
  if (!hasPocketsphinx && skipped('pocketsphinx', 'recognition')) return;
  if (!hasEspeak && skipped('espeak-ng', 'pocketsphinx recognition')) return;
  const speech = Buffer.concat(await speak(createEspeakSpeechBackend(), { text: 'What is the weather like today?' }));
  const transcription = createTranscriptionBackend('pocketsphinx');
  assert.is(transcription.name, 'pocketsphinx');
  const heard = await transcription.transcribe({ audio: speech, format: 'pcm16', signal });
  assert.match(heard.text, /\bweather\b/);
  assert.ok(Math.abs(heard.durationSeconds - speech.length / 48_000) < 1e-9);
});

test('pocketsphinx refuses MP3 and skips near-empty audio without running', async () => {
  const transcription = createPocketsphinxTranscriptionBackend({ binary: fakeEngine('unused-pocketsphinx', 'exit 1') });
  await rejectsWith(
    transcription.transcribe({ audio: Buffer.from('ID3 not really an mp3'), format: 'mp3', signal }),
    UnreadableMediaError,
  );
  await rejectsWith(
    transcription.transcribe({ audio: Buffer.from('not a wav'), format: 'wav', signal }),
    UnreadableMediaError,
  );
  assert.equal(await transcription.transcribe({ audio: Buffer.alloc(960), format: 'pcm16', signal }), {
    text: '',
    durationSeconds: 0.02,
  });
});

test('abort kills a transcription engine that is still running, with the abort reason', async () => {
  const pidFile = join(scratch, 'slow-pocketsphinx.pid');
  const slow = fakeEngine('slow-pocketsphinx', `echo $$ > '${pidFile}'\nexec sleep 60`);
  const controller = new AbortController();
  const reason = new Error('hung up');
  const pending = createPocketsphinxTranscriptionBackend({ binary: slow }).transcribe({
    audio: Buffer.alloc(48_000),
    format: 'pcm16',
    signal: controller.signal,
  });
  await eventually(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '');
  controller.abort(reason);
  assert.is(await rejectsWith(pending, Error), reason);
  const pid = Number(readFileSync(pidFile, 'utf8'));
  await eventually(() => !isRunning(pid));
});

test('a missing or failing pocketsphinx is a TerminalError', async () => {
  const audio = pcm16Wav(new Int16Array(16_000), 16_000);
  assert.is(pocketsphinxAvailable('/nonexistent/pocketsphinx_continuous'), false);
  await rejectsWith(
    createPocketsphinxTranscriptionBackend({ binary: '/nonexistent/pocketsphinx_continuous' }).transcribe({
      audio,
      format: 'wav',
      signal,
    }),
    TerminalError,
  );
  const failing = fakeEngine('failing-pocketsphinx', 'echo "ERROR: acoustic model not found" >&2\nexit 1');
  await rejectsWith(
    createPocketsphinxTranscriptionBackend({ binary: failing }).transcribe({ audio, format: 'wav', signal }),
    TerminalError,
  );
});

test('the factories build the sim engines always and the local ones when installed', () => {
  assert.is(createSpeechBackend('sim').name, 'sim');
  assert.is(createTranscriptionBackend('sim').name, 'sim');
  if (hasEspeak) assert.is(createSpeechBackend('espeak-ng').name, 'espeak-ng');
  else
    assert.throws(
      () => createSpeechBackend('espeak-ng'),
      (err: unknown) => err instanceof ConfigError,
    );
  if (hasPocketsphinx) assert.is(createTranscriptionBackend('pocketsphinx').name, 'pocketsphinx');
  else
    assert.throws(
      () => createTranscriptionBackend('pocketsphinx'),
      (err: unknown) => err instanceof ConfigError,
    );
});

test.run();
