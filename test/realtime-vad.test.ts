import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EnergyVad, pcmDurationMs, rmsDbfs, type VadEvent, type VadSettings } from '../runtime/realtime/vad.js';

const test = suite('energy VAD: speech start and stop in audio time, padding, chunking, bounds');
const defaults: VadSettings = { threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500 };

/** A tone at `dbfs` RMS for `ms`. */
function tone(ms: number, dbfs = -20, hz = 440): Buffer {
  const samples = 24 * ms;
  const amplitude = Math.SQRT2 * 32768 * 10 ** (dbfs / 20);
  const out = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) out.writeInt16LE(Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / 24_000)), i * 2);
  return out;
}
const silence = (ms: number) => Buffer.alloc(48 * ms);

function feed(vad: EnergyVad, audio: Buffer, chunk: number): VadEvent[] {
  const events: VadEvent[] = [];
  for (let at = 0; at < audio.length; at += chunk) events.push(...vad.push(audio.subarray(at, at + chunk)));
  return events;
}

test('helpers: duration and level', () => {
  assert.is(pcmDurationMs(48_000), 1000);
  assert.ok(Math.abs(rmsDbfs(tone(100, -20), 0, 2400) - -20) < 0.1);
  assert.is(rmsDbfs(silence(10), 0, 240), -100);
});

test('a tone between silences starts at its onset and stops after the silence duration', () => {
  const vad = new EnergyVad(defaults);
  const events = feed(vad, Buffer.concat([silence(1000), tone(800), silence(1000)]), 960);
  assert.equal(events.map((e) => e.type), ['speech_started', 'speech_stopped']);
  const [started, stopped] = events as [Extract<VadEvent, { type: 'speech_started' }>, Extract<VadEvent, { type: 'speech_stopped' }>];
  assert.ok(Math.abs(started.audioStartMs - 1000) <= 10, `start ${started.audioStartMs}`);
  assert.ok(Math.abs(stopped.audioEndMs - 1800) <= 10, `end ${stopped.audioEndMs}`);
  // 300 ms of padding, the 800 ms tone, 100 ms of the trailing silence.
  assert.ok(Math.abs(pcmDurationMs(stopped.audio.length) - 1200) <= 20, `turn ${pcmDurationMs(stopped.audio.length)} ms`);
  assert.is(vad.positionMs, 2800);
});

test('odd chunk sizes give exactly the same events and audio', () => {
  const audio = Buffer.concat([silence(500), tone(600), silence(700)]);
  const reference = feed(new EnergyVad(defaults), audio, 4800);
  for (const chunk of [1, 7, 4801]) {
    const events = feed(new EnergyVad(defaults), audio, chunk);
    assert.equal(events.map((e) => ({ ...e, ...('audio' in e && { audio: e.audio.length }) })), reference.map((e) => ({ ...e, ...('audio' in e && { audio: e.audio.length }) })), `chunk ${chunk}`);
  }
});

test('a 5 ms click does not start speech; a quiet tone below the threshold does not either', () => {
  const vad = new EnergyVad(defaults);
  assert.equal(feed(vad, Buffer.concat([silence(300), tone(5, -6), silence(600)]), 480), []);
  assert.equal(feed(vad, Buffer.concat([tone(800, -45), silence(600)]), 480), []);
});

test('the threshold sets the sensitivity', () => {
  const quiet = Buffer.concat([silence(200), tone(600, -40), silence(700)]);
  assert.equal(feed(new EnergyVad(defaults), quiet, 480).length, 0);
  assert.equal(feed(new EnergyVad({ ...defaults, threshold: 0.3 }), quiet, 480).length, 2);
});

test('a pause shorter than the silence duration keeps one turn; two utterances apart give two', () => {
  const one = feed(new EnergyVad(defaults), Buffer.concat([tone(400), silence(300), tone(400), silence(700)]), 480);
  assert.is(one.length, 2);
  const two = feed(new EnergyVad(defaults), Buffer.concat([tone(400), silence(700), tone(400), silence(700)]), 480);
  assert.equal(two.map((e) => e.type), ['speech_started', 'speech_stopped', 'speech_started', 'speech_stopped']);
});

test('long silence keeps only the padding; flush hands over a turn in progress and resets', () => {
  const vad = new EnergyVad(defaults);
  feed(vad, silence(60_000), 4800);
  assert.ok(pcmDurationMs(vad.flush().length) <= 350, 'idle audio is bounded by the padding');
  const events = feed(vad, Buffer.concat([silence(300), tone(500)]), 480);
  assert.equal(events.map((e) => e.type), ['speech_started']);
  assert.ok(vad.speaking);
  const turn = vad.flush();
  assert.ok(Math.abs(pcmDurationMs(turn.length) - 800) <= 20, `${pcmDurationMs(turn.length)} ms`);
  assert.not.ok(vad.speaking);
});

test('reset forgets a turn in progress', () => {
  const vad = new EnergyVad(defaults);
  feed(vad, tone(300), 480);
  vad.reset();
  assert.equal(feed(vad, silence(800), 480), []);
});

test.run();
