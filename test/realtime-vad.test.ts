import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  DEFAULT_VAD_SETTINGS,
  EnergyVad,
  MAX_TURN_MS,
  SILENCE_DBFS,
  TRAILING_SILENCE_MS,
  pcmDurationMs,
  rmsDbfs,
  speechProbability,
  type VadEvent,
  type VadSettings,
} from '../actors/realtime/vad.js';
import { releaseTurnAudio } from '../actors/realtime/vad-audio.js';

const test = suite('realtime VAD: turns found in audio time, whatever the chunking');
const defaults: VadSettings = { ...DEFAULT_VAD_SETTINGS };
type Started = Extract<VadEvent, { type: 'speech_started' }>;
type Stopped = Extract<VadEvent, { type: 'speech_stopped' }>;

const BYTES_PER_MS = 48;

/** A sine at `dbfs` RMS for `ms` (24 kHz PCM16LE mono). */
function tone(ms: number, dbfs = -20, hz = 440): Buffer {
  const samples = 24 * ms;
  const amplitude = Math.SQRT2 * 32768 * 10 ** (dbfs / 20);
  const out = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++)
    out.writeInt16LE(Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / 24_000)), i * 2);
  return out;
}
const silence = (ms: number) => Buffer.alloc(BYTES_PER_MS * ms);
const near = (actual: number, expected: number, tolerance: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual}, expected ${expected} ± ${tolerance}`);

function feed(vad: EnergyVad, audio: Buffer, chunk: number): VadEvent[] {
  const events: VadEvent[] = [];
  for (let at = 0; at < audio.length; at += chunk) events.push(...vad.push(audio.subarray(at, at + chunk)));
  return events;
}
const types = (events: VadEvent[]) => events.map((event) => event.type);
const startedOf = (events: VadEvent[]) => events.filter((e): e is Started => e.type === 'speech_started');
const stoppedOf = (events: VadEvent[]) => events.filter((e): e is Stopped => e.type === 'speech_stopped');

// 1 s of silence, 800 ms of tone, 1 s of silence: the reference utterance.
const utterance = Buffer.concat([silence(1000), tone(800), silence(1000)]);

test('pcmDurationMs, rmsDbfs and speechProbability measure what they say', () => {
  assert.is(pcmDurationMs(48_000), 1000);
  assert.is(pcmDurationMs(480), 10);
  near(rmsDbfs(tone(100, -20), 0, 2400), -20, 0.05, 'tone level');
  near(rmsDbfs(tone(100, -40), 480, 240), -40, 0.1, 'one frame at an offset');
  assert.is(rmsDbfs(silence(10), 0, 240), SILENCE_DBFS);
  const aligned = tone(20, -30);
  const shifted = Buffer.alloc(aligned.length + 1);
  aligned.copy(shifted, 1);
  assert.is(rmsDbfs(shifted.subarray(1), 0, 480), rmsDbfs(aligned, 0, 480), 'samples at an odd address read the same');
  assert.is(speechProbability(-60), 0);
  assert.is(speechProbability(-15), 1);
  assert.is(speechProbability(-37.5), 0.5);
  assert.is(speechProbability(SILENCE_DBFS), 0);
});

test('a tone between silences starts at its onset and stops at its end, within a frame', () => {
  const vad = new EnergyVad(defaults);
  const events = feed(vad, utterance, 960);
  assert.equal(types(events), ['speech_started', 'speech_stopped']);
  const [started] = startedOf(events);
  const [stopped] = stoppedOf(events);
  near(started!.audioStartMs, 1000, 10, 'speech start');
  near(stopped!.audioEndMs, 1800, 10, 'speech end');
  assert.is(vad.positionMs, 2800);
  assert.not.ok(vad.speaking);
});

test('the turn audio is the input from the padding before speech to the trailing silence kept', () => {
  const [started, stopped] = feed(new EnergyVad(defaults), utterance, 960) as [Started, Stopped];
  assert.is(started.turnStartMs, started.audioStartMs - defaults.prefixPaddingMs);
  assert.is(stopped.turnEndMs, stopped.audioEndMs + TRAILING_SILENCE_MS);
  near(pcmDurationMs(stopped.audio.length), 300 + 800 + TRAILING_SILENCE_MS, 20, 'turn length');
  const from = started.turnStartMs * BYTES_PER_MS;
  assert.ok(
    stopped.audio.equals(utterance.subarray(from, from + stopped.audio.length)),
    'turn audio is the input, unchanged',
  );
  // The padding is the silence before the tone, then the tone itself.
  assert.ok(stopped.audio.subarray(0, 300 * BYTES_PER_MS).equals(silence(300)));
  assert.ok(
    stopped.audio
      .subarray(300 * BYTES_PER_MS, 1100 * BYTES_PER_MS)
      .equals(utterance.subarray(1000 * BYTES_PER_MS, 1800 * BYTES_PER_MS)),
  );
});

test('a tone starting mid-frame is still placed within one frame', () => {
  const events = feed(new EnergyVad(defaults), Buffer.concat([silence(1005), tone(700), silence(800)]), 4800);
  const [started] = startedOf(events);
  const [stopped] = stoppedOf(events);
  near(started!.audioStartMs, 1005, 10, 'speech start');
  near(stopped!.audioEndMs, 1705, 10, 'speech end');
});

test('chunks of 1, 7 and 4801 bytes and random sizes give identical events and audio', () => {
  const audio = Buffer.concat([silence(500), tone(600), silence(700), tone(300, -25), silence(900)]);
  const reference = feed(new EnergyVad(defaults), audio, audio.length);
  assert.equal(types(reference), ['speech_started', 'speech_stopped', 'speech_started', 'speech_stopped']);
  const sizes = [1, 7, 4801, 479, 481];
  let seed = 7;
  const random = () => (seed = (seed * 48_271) % 2_147_483_647) % 3000;
  const chunkings: Buffer[][] = sizes.map((size) => {
    const chunks: Buffer[] = [];
    for (let at = 0; at < audio.length; at += size) chunks.push(audio.subarray(at, at + size));
    return chunks;
  });
  const randomChunks: Buffer[] = [];
  for (let at = 0; at < audio.length;) {
    const size = random();
    randomChunks.push(audio.subarray(at, at + size));
    at += size;
  }
  chunkings.push(randomChunks);
  for (const [index, chunks] of chunkings.entries()) {
    const vad = new EnergyVad(defaults);
    const events = chunks.flatMap((chunk) => vad.push(chunk));
    const label = index < sizes.length ? `chunks of ${sizes[index]} bytes` : 'random chunks';
    assert.equal(events.map(withoutAudio), reference.map(withoutAudio), label);
    stoppedOf(events).forEach((event, i) =>
      assert.ok(event.audio.equals(stoppedOf(reference)[i]!.audio), `${label}: audio of turn ${i}`),
    );
  }
});

function withoutAudio(event: VadEvent): object {
  return event.type === 'speech_stopped' ? { ...event, audio: event.audio.length } : event;
}

test('a 5 ms click does not start speech, even a loud one, nor do clicks 200 ms apart', () => {
  const vad = new EnergyVad(defaults);
  assert.equal(feed(vad, Buffer.concat([silence(300), tone(5, -6), silence(600)]), 480), []);
  const clicks = Buffer.concat(Array.from({ length: 10 }, () => Buffer.concat([tone(5, -6), silence(195)])));
  assert.equal(feed(vad, clicks, 333), []);
  // A click straddling two frames is still only two voiced frames.
  assert.equal(feed(new EnergyVad(defaults), Buffer.concat([silence(7), tone(5, -6), silence(600)]), 480), []);
});

test('the threshold sets the sensitivity', () => {
  const quiet = Buffer.concat([silence(200), tone(600, -40), silence(700)]); // p ≈ 0.44
  assert.equal(feed(new EnergyVad(defaults), quiet, 480), []);
  assert.equal(types(feed(new EnergyVad({ ...defaults, threshold: 0.3 }), quiet, 480)), [
    'speech_started',
    'speech_stopped',
  ]);
  const normal = Buffer.concat([silence(200), tone(600, -20), silence(700)]); // p ≈ 0.89
  assert.equal(feed(new EnergyVad({ ...defaults, threshold: 0.95 }), normal, 480), []);
});

test('update changes the threshold and durations from the next frame', () => {
  const vad = new EnergyVad(defaults);
  assert.equal(feed(vad, Buffer.concat([tone(400, -40), silence(600)]), 480), []);
  vad.update({ ...defaults, threshold: 0.3, silenceDurationMs: 200 });
  const started = feed(vad, Buffer.concat([silence(500), tone(400, -40)]), 480);
  assert.equal(types(started), ['speech_started']);
  near(startedOf(started)[0]!.audioStartMs, 1500, 10, 'start after update');
  assert.is(stopPosition(vad) - 1900, 200, 'the shorter silence duration ends the turn');
  assert.equal(types(feed(vad, tone(300, -40), 480)), ['speech_started']);
  vad.update({ ...defaults, threshold: 0.3, silenceDurationMs: 800 });
  assert.is(stopPosition(vad) - 2400, 800, 'and a longer one, mid-turn');
});

/** Feeds silence 10 ms at a time; the audio position at which the turn stops. */
function stopPosition(vad: EnergyVad): number {
  for (let i = 0; i < 1000; i++) if (vad.push(silence(10)).length > 0) return vad.positionMs;
  throw new Error('the turn never stopped');
}

test('a pause shorter than the silence duration keeps one turn; a longer one makes two', () => {
  const one = feed(
    new EnergyVad(defaults),
    Buffer.concat([silence(400), tone(400), silence(300), tone(400), silence(700)]),
    480,
  );
  assert.equal(types(one), ['speech_started', 'speech_stopped']);
  near(stoppedOf(one)[0]!.audioEndMs, 1500, 10, 'end of the second word');

  const two = feed(
    new EnergyVad(defaults),
    Buffer.concat([silence(400), tone(400), silence(700), tone(400), silence(700)]),
    480,
  );
  assert.equal(types(two), ['speech_started', 'speech_stopped', 'speech_started', 'speech_stopped']);
  const [first, second] = startedOf(two);
  near(first!.audioStartMs, 400, 10, 'first start');
  near(second!.audioStartMs, 1500, 10, 'second start');
  const [a, b] = stoppedOf(two);
  near(pcmDurationMs(a!.audio.length), 300 + 400 + TRAILING_SILENCE_MS, 20, 'first turn');
  // The second turn's padding is the silence heard after the first turn stopped.
  near(pcmDurationMs(b!.audio.length), 200 + 400 + TRAILING_SILENCE_MS, 20, 'second turn');
});

test('speech at the very start has only the padding there is', () => {
  const [started, stopped] = feed(
    new EnergyVad(defaults),
    Buffer.concat([silence(100), tone(500), silence(600)]),
    480,
  ) as [Started, Stopped];
  assert.is(started.turnStartMs, 0);
  near(pcmDurationMs(stopped.audio.length), 100 + 500 + TRAILING_SILENCE_MS, 20, 'turn');
  const [noPadding] = stoppedOf(feed(new EnergyVad({ ...defaults, prefixPaddingMs: 0 }), utterance, 480));
  near(pcmDurationMs(noPadding!.audio.length), 800 + TRAILING_SILENCE_MS, 20, 'turn without padding');
});

test('hours of silence keep only the padding buffered', () => {
  const vad = new EnergyVad(defaults);
  const minute = silence(60_000);
  for (let i = 0; i < 60; i++) assert.equal(vad.push(minute), []);
  assert.is(vad.positionMs, 3_600_000);
  assert.ok(
    pcmDurationMs(vad.flush().length) <= defaults.prefixPaddingMs + 50,
    'idle audio is bounded by the padding and the onset window',
  );
  const long = new EnergyVad({ ...defaults, prefixPaddingMs: 2000 });
  feed(long, silence(30_000), 4800);
  near(pcmDurationMs(long.flush().length), 2050, 10, 'a longer padding is kept whole');
  feed(long, silence(30_000), 4800);
  long.update({ ...defaults, prefixPaddingMs: 500 });
  near(pcmDurationMs(long.flush().length), 550, 10, 'a shorter padding keeps the newest audio');
});

test('flush during speech hands over the turn so far, with a partial frame, and resets', () => {
  const vad = new EnergyVad(defaults);
  assert.equal(types(feed(vad, Buffer.concat([silence(600), tone(500)]), 480)), ['speech_started']);
  assert.ok(vad.speaking);
  assert.equal(vad.push(tone(1).subarray(0, 7)), []);
  const turn = vad.flush();
  assert.is(turn.length, (300 + 500) * BYTES_PER_MS + 7);
  assert.not.ok(vad.speaking);
  assert.equal(feed(vad, silence(1000), 480), [], 'no speech_stopped for a flushed turn');
  assert.is(vad.flush().length, 350 * BYTES_PER_MS, 'then idle padding again');
});

test('reset forgets a turn in progress and keeps the session timeline', () => {
  const vad = new EnergyVad(defaults);
  feed(vad, tone(300), 480);
  vad.push(Buffer.alloc(101)); // a partial frame, dropped by the reset
  vad.reset();
  assert.not.ok(vad.speaking);
  const events = feed(vad, Buffer.concat([silence(800), tone(400), silence(600)]), 480);
  assert.equal(types(events), ['speech_started', 'speech_stopped']);
  near(
    startedOf(events)[0]!.audioStartMs,
    pcmDurationMs(300 * BYTES_PER_MS + 101) + 800,
    10,
    'start on the session timeline',
  );
});

test('a turn longer than the cap is stopped and speech goes on in a new turn', () => {
  const vad = new EnergyVad(defaults);
  const second = tone(1000);
  const events: VadEvent[] = [];
  for (let ms = 0; ms < MAX_TURN_MS + 2000; ms += 1000) events.push(...vad.push(second));
  assert.equal(types(events), ['speech_started', 'speech_stopped', 'speech_started']);
  const [stopped] = stoppedOf(events);
  assert.is(stopped!.audio.length, MAX_TURN_MS * BYTES_PER_MS);
  near(stopped!.audioEndMs, MAX_TURN_MS, 10, 'forced stop');
  assert.ok(vad.speaking);
});

test('a turn’s audio is lent: given back it serves a later turn; until then later turns leave it unchanged', () => {
  const first = Buffer.concat([silence(500), tone(2500, -20, 440), silence(1000)]);
  const second = Buffer.concat([silence(500), tone(2500, -25, 660), silence(1000)]);
  const [a, b] = [new EnergyVad(defaults), new EnergyVad(defaults)];
  const turnA = stoppedOf(feed(a, first, 960))[0]!.audio;
  assert.ok(turnA.length > 96_000, 'a turn longer than the first 2 s buffer');
  assert.ok(first.indexOf(turnA) >= 0, 'the turn is a run of its input');
  const turnB = stoppedOf(feed(b, second, 480))[0]!.audio;
  const heldB = Buffer.from(turnB);
  releaseTurnAudio(turnA);
  releaseTurnAudio(turnA); // a second give-back is ignored
  const turnA2 = stoppedOf(feed(a, second, 1920))[0]!.audio;
  assert.ok(turnA2.buffer === turnA.buffer, 'the given-back buffer is used again');
  assert.ok(second.indexOf(turnA2) >= 0, 'the later turn is a run of its input');
  const turnA3 = stoppedOf(feed(a, first, 960))[0]!.audio;
  assert.ok(turnA3.buffer !== turnA2.buffer, 'a buffer given back once is lent once');
  assert.ok(turnB.equals(heldB), 'a turn not given back is unchanged by the turns after it');
  b.push(tone(1000));
  b.reset(); // a turn dropped mid-speech gives its buffer back too
  assert.ok(second.indexOf(stoppedOf(feed(b, second, 480))[0]!.audio) >= 0);
});

test.run();
