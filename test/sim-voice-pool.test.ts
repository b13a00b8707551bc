import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pcm16Samples } from '../backends/pcm16-samples.js';
import { createSimSpeechBackend } from '../backends/sim/sim-speech.js';
import { createSimTranscriptionBackend } from '../backends/sim/sim-transcription.js';
import { decodeSimVoice, simVoiceChunks } from '../backends/sim/sim-voice-codec.js';
import { createSimVoicePool, type SimVoicePool } from '../backends/sim/sim-voice-pool.js';

const test = suite('sim voice on worker threads: the same sound and the same reading as in the event loop');

let pool: SimVoicePool;
test.before(() => {
  pool = createSimVoicePool({ threads: 1 });
});
test.after(async () => {
  await pool.close();
});

const signal = new AbortController().signal;
const TEXT = 'Tell me more about Paris, please.';

async function spoken(backend: ReturnType<typeof createSimSpeechBackend>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of backend.synthesize({ text: TEXT, voice: 'alloy', signal })) chunks.push(chunk);
  return Buffer.concat(chunks);
}

test('speaking on the pool renders the same PCM, in the same 100 ms chunks', async () => {
  const inLoop = await spoken(createSimSpeechBackend());
  const onPool = await spoken(createSimSpeechBackend({ pool }));
  assert.ok(onPool.equals(inLoop));
  assert.ok(onPool.equals(Buffer.concat([...simVoiceChunks(TEXT, 4800)])));
});

test("reading on the pool gives the loop's transcript, and leaves the caller's buffer whole", async () => {
  const pcm = await spoken(createSimSpeechBackend());
  const slice = Buffer.concat([Buffer.alloc(4800), pcm]).subarray(4800);
  const transcriber = createSimTranscriptionBackend({ pool });
  const transcript = await transcriber.transcribe({ audio: slice, format: 'pcm16', language: null, signal });
  assert.is(transcript.text, TEXT);
  assert.is(transcript.text, decodeSimVoice(pcm16Samples(pcm)));
  assert.is(slice.length, pcm.length, 'not transferred away (a copy went)');
  // Audio without the sim voice: the same deterministic words as in the loop.
  const noise = Buffer.alloc(48_000, 7);
  const inLoop = await createSimTranscriptionBackend().transcribe({
    audio: noise,
    format: 'pcm16',
    language: null,
    signal,
  });
  const onPool = await transcriber.transcribe({ audio: noise, format: 'pcm16', language: null, signal });
  assert.equal(onPool, inLoop);
});

test('many reads at once: those beyond the queue run in the loop, every one reads the same', async () => {
  const pcm = await spoken(createSimSpeechBackend());
  const texts = await Promise.all(Array.from({ length: 12 }, () => pool.read(pcm, signal)));
  assert.equal(new Set(texts), new Set([TEXT]));
  const voices = await Promise.all(Array.from({ length: 6 }, () => pool.speak(TEXT, signal)));
  for (const voice of voices) assert.ok(voice.equals(pcm));
});

test('an aborted request stops with its reason', async () => {
  const controller = new AbortController();
  controller.abort(new Error('caller left'));
  const transcriber = createSimTranscriptionBackend({ pool });
  const failed = await transcriber
    .transcribe({ audio: Buffer.alloc(4800), format: 'pcm16', language: null, signal: controller.signal })
    .then(
      () => null,
      (err: unknown) => err,
    );
  assert.instance(failed, Error);
});

test.run();
