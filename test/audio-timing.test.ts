import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { unitBill } from '../actors/audio/audio-billing.js';
import { completeTimings, splitSegments } from '../actors/audio/transcript-timing.js';
import { atempoChain } from '../backends/audio/ffmpeg-audio-codec.js';
import { soundStretches } from '../backends/sim/sim-timed-transcription.js';
import { countCharacters } from '../protocols/audio.js';
import { srt, vtt } from '../http/views/audio-transcription-view.js';

const test = suite('audio timing and arithmetic: segments and word times filled in, subtitles, tempo chains, bills');

test('an engine without times gets sentences laid over the audio in proportion, words inside them, in order', () => {
  const timed = completeTimings(
    { text: 'Hello there. How are you today?', durationSeconds: 10 },
    { language: null, speakers: false },
  );
  assert.is(timed.language, 'en');
  assert.equal(
    timed.segments.map((s) => s.text),
    ['Hello there.', 'How are you today?'],
  );
  assert.is(timed.segments[0]!.start, 0);
  assert.ok(timed.segments[1]!.end <= 10);
  assert.ok(timed.segments[0]!.end <= timed.segments[1]!.start);
  assert.equal(
    timed.words.map((w) => w.word),
    ['Hello', 'there', 'How', 'are', 'you', 'today'],
  );
  for (let i = 1; i < timed.words.length; i++) assert.ok(timed.words[i]!.start >= timed.words[i - 1]!.end);
  assert.is(timed.segments[0]!.speaker, undefined);
});

test('speakers: kept when asked for, `A` when the engine tells none apart, dropped when not asked for', () => {
  const given = {
    text: 'Hi. Bye.',
    durationSeconds: 2,
    segments: [
      { start: 0, end: 1, text: 'Hi.', speaker: 'B' },
      { start: 1, end: 2, text: 'Bye.' },
    ],
  };
  assert.equal(
    completeTimings(given, { language: 'pt-BR', speakers: true }).segments.map((s) => s.speaker),
    ['B', 'A'],
  );
  assert.equal(
    completeTimings(given, { language: 'pt-BR', speakers: false }).segments.map((s) => s.speaker),
    [undefined, undefined],
  );
  assert.is(completeTimings(given, { language: 'pt-BR', speakers: false }).language, 'pt');
});

test('long sentences are cut every 30 words; empty text has no segments', () => {
  const words = Array.from({ length: 65 }, (_, i) => `w${i}`).join(' ');
  assert.equal(
    splitSegments(words).map((s) => s.split(' ').length),
    [30, 30, 5],
  );
  assert.equal(completeTimings({ text: '', durationSeconds: 3 }, { language: null, speakers: false }).segments, []);
});

test('SRT and WebVTT timestamps past an hour, with speakers', () => {
  const transcript = {
    text: 'x',
    durationSeconds: 4000,
    language: 'en',
    words: [],
    segments: [{ start: 3661.5, end: 3662.25, text: 'Late.', speaker: 'B' }],
  };
  assert.is(srt(transcript), '1\n01:01:01,500 --> 01:01:02,250\nB: Late.\n');
  assert.is(vtt(transcript), 'WEBVTT\n\n01:01:01.500 --> 01:01:02.250\n<v B>Late.\n');
});

test('atempo is chained below 0.5 (ffmpeg takes 0.5 to 100 per filter)', () => {
  assert.is(atempoChain(1.5), 'atempo=1.5');
  assert.is(atempoChain(0.5), 'atempo=0.5');
  assert.is(atempoChain(0.25), 'atempo=0.5,atempo=0.5');
  assert.is(atempoChain(0.3), 'atempo=0.5,atempo=0.6');
});

test('bills: characters per 1,000 and milliseconds per minute, rounded up to the micro-dollar, 25 % on top', () => {
  const engine = { backend: 'standard', engine: 'sim', costMicrosPerBlock: 15_000 };
  assert.equal(unitBill('speech', 1, engine), {
    costMicros: 15,
    priceMicros: 19,
    backend: 'standard',
    engine: 'sim',
    unit: 'input_characters',
    units: 1,
  });
  const minute = { backend: 'standard', engine: 'sim', costMicrosPerBlock: 6_000 };
  assert.is(unitBill('transcription', 60, minute).costMicros, 6_000);
  assert.is(unitBill('transcription', 0.001, minute).costMicros, 1);
  assert.is(unitBill('transcription', 1.2345, minute).units, 1.235);
});

test('characters are code points (surrogate pairs count once)', () => {
  assert.is(countCharacters('héllo'), 5);
  assert.is(countCharacters('👋🏽'), 2);
  assert.is(countCharacters(''), 0);
});

test('sound stretches: pauses of 250 ms split, shorter ones do not, blips under 50 ms are dropped', () => {
  const tone = (ms: number) => Int16Array.from({ length: ms * 24 }, (_, n) => Math.round(8000 * Math.sin(n / 3)));
  const silence = (ms: number) => new Int16Array(ms * 24);
  const join = (...parts: Int16Array[]) => {
    const out = new Int16Array(parts.reduce((sum, p) => sum + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  };
  assert.is(soundStretches(join(tone(300), silence(100), tone(300))).length, 1);
  assert.is(soundStretches(join(tone(300), silence(400), tone(300))).length, 2);
  assert.is(soundStretches(join(silence(200), tone(20), silence(400))).length, 0);
});

test.run();
