import type { MusicBackend, MusicRequest } from '../music.js';
import { seedFromBytes, type SimRandom } from './sim-media-seed.js';
import { throwScriptedFailure } from './sim-script.js';

/** The sim's music: 48 kHz stereo (the spec's mp3 rate). */
const RATE = 48_000;
const CHUNK_FRAMES = RATE / 2;

type Kind = 'lead' | 'bass' | 'pad' | 'kick' | 'snare' | 'hat';

/** One sounding note: when (in frames), how long, its pitch and level, where in the stereo field. */
interface Note {
  kind: Kind;
  start: number;
  length: number;
  hz: number;
  gain: number;
  /** -1 left to 1 right. */
  pan: number;
  /** Seeds the note's noise, so any chunk renders it the same. */
  seed: number;
}

const SCALES = {
  major: [0, 2, 4, 5, 7, 9, 11],
  minor: [0, 2, 3, 5, 7, 8, 10],
  dorian: [0, 2, 3, 5, 7, 9, 10],
} as const;

/** Chord roots as scale degrees, one chord a bar. */
const PROGRESSIONS = [
  [0, 4, 5, 3],
  [0, 5, 3, 4],
  [0, 3, 4, 4],
  [5, 3, 0, 4],
  [0, 3, 0, 4],
] as const;

const midiHz = (note: number) => 440 * 2 ** ((note - 69) / 12);

/** What the prompt asks for: the mode and the tempo, nudged by a few words, the rest by chance. */
function style(prompt: string, random: SimRandom): { scale: readonly number[]; bpm: number; root: number } {
  const text = prompt.toLowerCase();
  const dark = /\b(sad|dark|melanchol\w*|minor|night|rain\w*|lonely|tense|horror)\b/.test(text);
  const bright = /\b(happy|bright|sunny|joy\w*|major|cheerful|uplifting|pop)\b/.test(text);
  const scale = dark ? SCALES.minor : bright ? SCALES.major : random.pick([SCALES.major, SCALES.minor, SCALES.dorian]);
  let bpm = 80 + Math.floor(random.next() * 50);
  if (/\b(fast|energetic|upbeat|dance|driving|techno|rock)\b/.test(text)) bpm += 30;
  if (/\b(slow|calm|ambient|relax\w*|lullaby|chill)\b/.test(text)) bpm -= 25;
  return { scale, bpm: Math.max(60, Math.min(170, bpm)), root: 45 + Math.floor(random.next() * 12) };
}

/** The whole piece as notes, in start order. */
export function composeNotes(prompt: string, seed: number | null, frames: number): Note[] {
  const random = seedFromBytes(Buffer.from(prompt, 'utf8'), `music:${seed ?? ''}`);
  const { scale, bpm, root } = style(prompt, random);
  const beat = Math.round((RATE * 60) / bpm);
  const progression = random.pick(PROGRESSIONS);
  const degreeNote = (degree: number, octave: number) =>
    root + 12 * (octave + Math.floor(degree / 7)) + scale[((degree % 7) + 7) % 7]!;
  const notes: Note[] = [];
  let seedCounter = 1;
  const add = (note: Omit<Note, 'seed'>) => {
    if (note.start < frames) notes.push({ ...note, seed: seedCounter++ });
  };
  let melody = 7 + Math.floor(random.next() * 5); // a scale degree an octave up
  for (let bar = 0; bar * 4 * beat < frames; bar++) {
    const chord = progression[bar % progression.length]!;
    const barStart = bar * 4 * beat;
    for (const third of [0, 2, 4])
      add({
        kind: 'pad',
        start: barStart,
        length: 4 * beat,
        hz: midiHz(degreeNote(chord + third, 1)),
        gain: 0.05,
        pan: third === 2 ? -0.5 : 0.5,
      });
    for (let b = 0; b < 4; b++) {
      const at = barStart + b * beat;
      add({
        kind: 'bass',
        start: at,
        length: Math.round(beat * 0.9),
        hz: midiHz(degreeNote(chord, b % 2 === 0 ? 0 : 1) - 12),
        gain: 0.22,
        pan: 0,
      });
      if (b % 2 === 0) add({ kind: 'kick', start: at, length: Math.round(RATE * 0.2), hz: 50, gain: 0.5, pan: 0 });
      else add({ kind: 'snare', start: at, length: Math.round(RATE * 0.15), hz: 180, gain: 0.18, pan: 0.1 });
      for (const half of [0, 1])
        add({
          kind: 'hat',
          start: at + (half * beat) / 2,
          length: Math.round(RATE * 0.04),
          hz: 0,
          gain: 0.05,
          pan: -0.4,
        });
    }
    // The melody: eighth notes walking the scale near the chord, with rests and held notes.
    for (let eighth = 0; eighth < 8;) {
      const held = random.next() < 0.3 ? 2 : 1;
      if (random.next() > 0.15) {
        const step = Math.floor(random.next() * 5) - 2;
        melody = Math.max(5, Math.min(16, melody + step));
        if (eighth === 0) melody = chord + 7 + (random.next() < 0.5 ? 2 : 0); // land near the chord on the bar
        add({
          kind: 'lead',
          start: barStart + (eighth * beat) / 2,
          length: Math.round(((held * beat) / 2) * 0.95),
          hz: midiHz(degreeNote(melody, 1)),
          gain: 0.16,
          pan: 0.25,
        });
      }
      eighth += held;
    }
  }
  return notes.sort((a, b) => a.start - b.start);
}

/** A deterministic noise sample in [-1, 1) for (note, frame). */
function noise(seed: number, n: number): number {
  let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(n, 0xc2b2ae35);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return (h >>> 0) / 0x8000_0000 - 1;
}

/** One note's sample `t` frames after its start. */
function voice(note: Note, t: number): number {
  const s = t / RATE;
  const left = (note.length - t) / RATE;
  const phase = 2 * Math.PI * note.hz * s;
  switch (note.kind) {
    case 'lead':
      return (
        note.gain *
        Math.min(1, s / 0.01, left / 0.05) *
        (Math.sin(phase) + Math.sin(3 * phase) / 9) *
        (1 - 0.3 * Math.min(1, s / 0.2))
      );
    case 'bass':
      return note.gain * Math.min(1, s / 0.005, left / 0.04) * (Math.sin(phase) + 0.3 * Math.sin(2 * phase));
    case 'pad':
      return note.gain * Math.min(1, s / 0.2, left / 0.2) * (Math.sin(phase) + Math.sin(phase * 1.003));
    case 'kick':
      return note.gain * Math.exp(-s / 0.08) * Math.sin(2 * Math.PI * (45 * s + 75 * 0.03 * (1 - Math.exp(-s / 0.03))));
    case 'snare':
      return note.gain * Math.exp(-s / 0.05) * (0.7 * noise(note.seed, t) + 0.3 * Math.sin(phase));
    case 'hat':
      return note.gain * Math.exp(-s / 0.012) * (noise(note.seed, t) - noise(note.seed, t + 1));
  }
}

/** Renders frames `[from, to)` of the piece as interleaved stereo PCM16. */
function renderChunk(
  notes: readonly Note[],
  from: number,
  to: number,
  total: number,
  state: { next: number; active: Note[] },
): Buffer {
  while (state.next < notes.length && notes[state.next]!.start < to) state.active.push(notes[state.next++]!);
  state.active = state.active.filter((note) => note.start + note.length > from);
  const mix = new Float32Array((to - from) * 2);
  for (const note of state.active) {
    const begin = Math.max(from, note.start);
    const end = Math.min(to, note.start + note.length);
    const right = (1 + note.pan) / 2;
    for (let frame = begin; frame < end; frame++) {
      const value = voice(note, frame - note.start);
      mix[2 * (frame - from)]! += value * (1 - right) * 2 * 0.7;
      mix[2 * (frame - from) + 1]! += value * right * 2 * 0.7;
    }
  }
  const out = Buffer.alloc(mix.length * 2);
  for (let i = 0; i < mix.length; i++) {
    const frame = from + (i >> 1);
    // 20 ms in, up to a second out: no click at either end.
    const fade = Math.min(1, frame / (RATE * 0.02), (total - frame) / Math.min(RATE, total / 4));
    out.writeInt16LE(Math.round(Math.tanh(mix[i]! * fade) * 32_000), i * 2);
  }
  return out;
}

async function* compose(request: MusicRequest): AsyncGenerator<Buffer, void, undefined> {
  request.signal.throwIfAborted();
  throwScriptedFailure(request.metadata);
  const total = Math.round(request.durationSeconds * RATE);
  const notes = composeNotes(request.prompt, request.seed, total);
  const state = { next: 0, active: [] as Note[] };
  for (let from = 0; from < total; from += CHUNK_FRAMES) {
    const chunk = renderChunk(notes, from, Math.min(total, from + CHUNK_FRAMES), total, state);
    request.signal.throwIfAborted();
    yield chunk;
    // Rendering is synchronous: let the event loop breathe between half-seconds.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * The embedded composer: a deterministic piece from the prompt (and `seed`): mode and tempo from
 * a few mood words and a hash, a four-chord progression, a walking melody, bass, pads and drums,
 * rendered at 48 kHz stereo half a second at a time.
 */
export function createSimMusicBackend(): MusicBackend {
  return { name: 'sim', shape: { sampleRate: RATE, channels: 2 }, compose };
}
