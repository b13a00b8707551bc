import { pcm16Samples, resamplePcm16, wavMonoSamples } from '../pcm16-samples.js';
import { PCM16_SAMPLE_RATE } from '../speech.js';
import type {
  Transcript,
  TranscriptionBackend,
  TranscriptionRequest,
  TranscriptSegment,
  TranscriptWord,
} from '../transcription.js';
import { UnreadableMediaError } from '../unreadable-media-error.js';
import { seedFromBytes, SIM_WORDS_PER_SECOND, simSpeech } from './sim-media-seed.js';
import { createSimTranscriptionBackend } from './sim-transcription.js';
import { throwScriptedFailure } from './sim-script.js';
import { decodeSimVoice } from './sim-voice-codec.js';

const FRAME = 240; // 10 ms
/** A frame at least this loud (dBFS) holds sound. */
const SOUND_DBFS = -45;
/** Pauses shorter than this stay inside one utterance. */
const MIN_PAUSE_FRAMES = 25;
const MIN_SOUND_FRAMES = 5;
/** Margin around an utterance when it is decoded on its own. */
const MARGIN = 960;
/** Sim voice timing: 30 ms symbols, 8 before the text (sync and length), two per UTF-8 byte. */
const SYMBOL_SECONDS = 0.03;
const HEADER_SYMBOLS = 8;

/** A stretch of sound between pauses, in samples. */
interface Stretch {
  from: number;
  to: number;
}

/** Stretches of sound at least 50 ms long, pauses under 250 ms bridged. */
export function soundStretches(x: Int16Array): Stretch[] {
  const floor = 32_768 ** 2 * 10 ** (SOUND_DBFS / 10) * FRAME;
  const stretches: Stretch[] = [];
  let open: Stretch | null = null;
  let quiet = 0;
  for (let from = 0; from < x.length; from += FRAME) {
    const to = Math.min(x.length, from + FRAME);
    let sum = 0;
    for (let n = from; n < to; n++) sum += x[n]! * x[n]!;
    if (sum * (FRAME / (to - from)) >= floor) {
      if (!open) open = { from, to };
      open.to = to;
      quiet = 0;
    } else if (open && ++quiet >= MIN_PAUSE_FRAMES) {
      stretches.push(open);
      open = null;
    }
  }
  if (open) stretches.push(open);
  return stretches
    .filter((s) => s.to - s.from >= MIN_SOUND_FRAMES * FRAME)
    .map((s) => {
      // The first and last audible samples, to the sample rather than the frame.
      let from = s.from;
      while (from < s.to && Math.abs(x[from]!) < 200) from++;
      let to = s.to;
      while (to > from && Math.abs(x[to - 1]!) < 200) to--;
      return { from, to };
    });
}

const EDGE_PUNCTUATION = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu;

/** The words of a sim-voice utterance starting at `start` seconds, timed exactly from its bytes. */
function utteranceWords(text: string, start: number): TranscriptWord[] {
  const words: TranscriptWord[] = [];
  let byte = 0;
  for (const piece of text.split(/(\s+)/)) {
    const bytes = Buffer.byteLength(piece, 'utf8');
    const word = piece.replace(EDGE_PUNCTUATION, '');
    if (word && !/^\s+$/.test(piece)) {
      const at = (symbols: number) => Math.round((start + (HEADER_SYMBOLS + symbols) * SYMBOL_SECONDS) * 1000) / 1000;
      words.push({ word, start: at(2 * byte), end: at(2 * (byte + bytes)) });
    }
    byte += bytes;
  }
  return words;
}

/** Words spread over `[start, end]` in proportion to their length (audio that carries no sim voice). */
function spreadWords(text: string, start: number, end: number): TranscriptWord[] {
  const pieces = text.split(/\s+/).filter(Boolean);
  const total = pieces.reduce((sum, piece) => sum + piece.length + 1, 0);
  const words: TranscriptWord[] = [];
  let done = 0;
  for (const piece of pieces) {
    const at = (chars: number) => Math.round((start + ((end - start) * chars) / total) * 1000) / 1000;
    const word = piece.replace(EDGE_PUNCTUATION, '');
    if (word) words.push({ word, start: at(done), end: at(done + piece.length) });
    done += piece.length + 1;
  }
  return words;
}

function samplesOf(request: TranscriptionRequest): Int16Array {
  if (request.format === 'pcm16') return pcm16Samples(request.audio);
  const wav = wavMonoSamples(request.audio);
  if (!wav) throw new UnreadableMediaError('not a 16-bit PCM WAV file');
  return resamplePcm16(wav.samples, wav.sampleRate, PCM16_SAMPLE_RATE);
}

const round3 = (seconds: number) => Math.round(seconds * 1000) / 1000;

function transcribeSamples(request: TranscriptionRequest, x: Int16Array): Transcript {
  const durationSeconds = x.length / PCM16_SAMPLE_RATE;
  const language = request.language?.split('-')[0]?.toLowerCase() ?? 'en';
  const stretches = soundStretches(x);
  const segments: TranscriptSegment[] = [];
  const words: TranscriptWord[] = [];
  for (const stretch of stretches) {
    const text = decodeSimVoice(
      x.subarray(Math.max(0, stretch.from - MARGIN), Math.min(x.length, stretch.to + MARGIN)),
    );
    if (text === null) continue;
    const start = stretch.from / PCM16_SAMPLE_RATE;
    // Each utterance is a turn; turns alternate between two speakers.
    const speaker = segments.length % 2 === 0 ? 'A' : 'B';
    segments.push({
      start: round3(start),
      end: round3(stretch.to / PCM16_SAMPLE_RATE),
      text,
      ...(request.detail?.speakers && { speaker }),
    });
    words.push(...utteranceWords(text, start));
  }
  if (segments.length)
    return { text: segments.map((segment) => segment.text).join(' '), durationSeconds, language, segments, words };
  // No sim voice: a few words a second of the sound's length, chosen by the bytes.
  const first = stretches[0];
  const last = stretches.at(-1);
  if (!first || !last) return { text: '', durationSeconds, language, segments: [], words: [] };
  const start = round3(first.from / PCM16_SAMPLE_RATE);
  const end = round3(last.to / PCM16_SAMPLE_RATE);
  const text = simSpeech(
    seedFromBytes(request.audio, 'speech'),
    Math.max(1, Math.round((end - start) * SIM_WORDS_PER_SECOND)),
  );
  return {
    text,
    durationSeconds,
    language,
    segments: [{ start, end, text, ...(request.detail?.speakers && { speaker: 'A' }) }],
    words: spreadWords(text, start, end),
  };
}

/**
 * The embedded transcriber with times, for `/v1/audio/transcriptions`: sound is cut at pauses of
 * 250 ms or more; each stretch that carries sim voice is one segment with its exact text and
 * word times (the codec's timing is known to the symbol), turns alternating between speakers A
 * and B; audio with no sim voice gets a few words a second chosen by a hash of its bytes, spread
 * over the sound. MP3 goes to the plain sim transcriber (no times).
 */
export function createSimTimedTranscriptionBackend(): TranscriptionBackend {
  const plain = createSimTranscriptionBackend();
  return {
    name: 'sim',
    async transcribe(request) {
      request.signal.throwIfAborted();
      throwScriptedFailure(request.metadata);
      if (request.format === 'mp3') return plain.transcribe(request);
      const x = samplesOf(request);
      await new Promise((resolve) => setImmediate(resolve));
      return transcribeSamples(request, x);
    },
  };
}
