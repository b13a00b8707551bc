// The sim's "voice": text carried as tones in PCM16 24 kHz, so the sim transcriber can read back
// exactly what the sim speech backend said, and tests can run a whole voice loop with no engines.
//
// An utterance is a run of 30 ms symbols, each one of 16 tones (700 to 2200 Hz, 100 Hz apart)
// shaped by a 5 ms raised-cosine rise and fall: sync (4 fixed tones), byte length (16 bits),
// the text's UTF-8 bytes (two 4-bit symbols each, high nibble first), CRC-16 of length and bytes.
// Tones sit on exact bins of the 20 ms flat middle of a symbol, so a Goertzel filter there sees
// one tone and nothing of the others.
import { pcm16Bytes } from '../pcm16-samples.js';

const SAMPLE_RATE = 24_000;
const SYMBOL_SAMPLES = 720; // 30 ms
const RAMP_SAMPLES = 120; // 5 ms rise and 5 ms fall
const WINDOW_SAMPLES = SYMBOL_SAMPLES - 2 * RAMP_SAMPLES; // the flat middle the decoder listens to
const BIN_HZ = SAMPLE_RATE / WINDOW_SAMPLES; // 50 Hz
const TONES = 16;
const FIRST_BIN = 14; // 700 Hz
const BIN_STEP = 2; // 100 Hz between tones: a sync found a few samples off still reads cleanly
const SYNC = [1, 14, 4, 11] as const;
const SYNC_SAMPLES = SYNC.length * SYMBOL_SAMPLES;
/** Symbols besides the text's: sync, 4 for the length, 4 for the checksum. */
const FRAMING_SYMBOLS = SYNC.length + 8;
/** Speech-like loudness: about -20 dBFS RMS over a symbol. */
const TARGET_RMS = 0.1 * 32_768;

/** The longest text one utterance carries, in UTF-8 bytes (a 16-bit length; about 65 minutes of speech). */
export const SIM_VOICE_MAX_BYTES = 0xffff;

// Decoder thresholds, as tone purity: the share of a window's energy in the expected tone (1 = pure).
const TRIGGER_PURITY = 0.5;
const SYNC_PURITY = 0.6;
const SYMBOL_PURITY = 0.3;
const COARSE_STEP = 48;
// Purity falls to TRIGGER_PURITY about 140 samples off alignment; the span covers that and a step.
const REFINE_SPAN = WINDOW_SAMPLES / 2;
const REFINE_STEP = 8;

function envelope(n: number): number {
  const fromEdge = Math.min(n, SYMBOL_SAMPLES - 1 - n);
  return fromEdge >= RAMP_SAMPLES ? 1 : 0.5 * (1 - Math.cos((Math.PI * fromEdge) / RAMP_SAMPLES));
}

const TONE_WAVES: readonly Int16Array[] = (() => {
  let meanSquare = 0;
  for (let n = 0; n < SYMBOL_SAMPLES; n++) meanSquare += envelope(n) ** 2 / SYMBOL_SAMPLES;
  const amplitude = TARGET_RMS * Math.sqrt(2 / meanSquare);
  return Array.from({ length: TONES }, (_, tone) => {
    const omega = (2 * Math.PI * (FIRST_BIN + BIN_STEP * tone) * BIN_HZ) / SAMPLE_RATE;
    return Int16Array.from({ length: SYMBOL_SAMPLES }, (_, n) =>
      Math.round(amplitude * envelope(n) * Math.sin(omega * n)),
    );
  });
})();

const GOERTZEL_COEFFICIENTS = Array.from(
  { length: TONES },
  (_, tone) => 2 * Math.cos((2 * Math.PI * (FIRST_BIN + BIN_STEP * tone)) / WINDOW_SAMPLES),
);

/** CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF). */
function crc16(bytes: Uint8Array): number {
  let crc = 0xffff;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

function messageSymbols(text: string): Uint8Array {
  const payload = Buffer.from(text, 'utf8');
  if (payload.length > SIM_VOICE_MAX_BYTES)
    throw new RangeError(
      `sim voice: text is ${payload.length} UTF-8 bytes, at most ${SIM_VOICE_MAX_BYTES} fit one utterance`,
    );
  const body = Buffer.concat([Buffer.from([payload.length >> 8, payload.length & 0xff]), payload]);
  const crc = crc16(body);
  const bytes = Buffer.concat([body, Buffer.from([crc >> 8, crc & 0xff])]);
  const symbols = new Uint8Array(SYNC.length + bytes.length * 2);
  symbols.set(SYNC);
  bytes.forEach((byte, i) => {
    symbols[SYNC.length + 2 * i] = byte >> 4;
    symbols[SYNC.length + 2 * i + 1] = byte & 0x0f;
  });
  return symbols;
}

/** How long `text` takes as sim voice, in seconds: 60 ms per UTF-8 byte (16.7 ASCII characters a second) plus 360 ms. */
export function simVoiceSeconds(text: string): number {
  return ((FRAMING_SYMBOLS + 2 * Buffer.byteLength(text, 'utf8')) * SYMBOL_SAMPLES) / SAMPLE_RATE;
}

/**
 * `text` as one sim-voice utterance, PCM16 LE mono 24 kHz, rendered a chunk of `chunkBytes`
 * (rounded down to whole samples) at a time so a caller can send the start while the rest waits.
 * Throws RangeError past SIM_VOICE_MAX_BYTES.
 */
export function* simVoiceChunks(text: string, chunkBytes = 4800): Generator<Buffer, void, undefined> {
  const symbols = messageSymbols(text);
  const chunkSamples = Math.max(1, chunkBytes >> 1);
  let chunk = new Int16Array(chunkSamples);
  let filled = 0;
  for (const symbol of symbols) {
    const wave = TONE_WAVES[symbol]!;
    for (let from = 0; from < wave.length;) {
      const count = Math.min(wave.length - from, chunkSamples - filled);
      chunk.set(wave.subarray(from, from + count), filled);
      filled += count;
      from += count;
      if (filled === chunkSamples) {
        yield pcm16Bytes(chunk);
        chunk = new Int16Array(chunkSamples);
        filled = 0;
      }
    }
  }
  if (filled) yield pcm16Bytes(chunk.subarray(0, filled));
}

/** `text` as one sim-voice utterance, PCM16 LE mono 24 kHz, all at once. */
export function encodeSimVoice(text: string): Buffer {
  const symbols = messageSymbols(text);
  const samples = new Int16Array(symbols.length * SYMBOL_SAMPLES);
  symbols.forEach((symbol, i) => samples.set(TONE_WAVES[symbol]!, i * SYMBOL_SAMPLES));
  return pcm16Bytes(samples);
}

/**
 * Samples and the running sum of their squares (`squares[i]` = Σ x[0..i)²), so a window's energy
 * is one subtraction rather than a pass over it: the scan asks for thousands of windows a turn.
 * Exact: int16 squares summed over even an hour of audio stay far below 2^53.
 */
interface Signal {
  x: Int16Array;
  squares: Float64Array;
}

function signalOf(x: Int16Array): Signal {
  const squares = new Float64Array(x.length + 1);
  for (let n = 0; n < x.length; n++) squares[n + 1] = squares[n]! + x[n]! * x[n]!;
  return { x, squares };
}

function energy({ squares }: Signal, start: number): number {
  return squares[start + WINDOW_SAMPLES]! - squares[start]!;
}

function tonePower({ x }: Signal, start: number, tone: number): number {
  const coefficient = GOERTZEL_COEFFICIENTS[tone]!;
  let s1 = 0;
  let s2 = 0;
  for (let n = start; n < start + WINDOW_SAMPLES; n++) {
    const s0 = x[n]! + coefficient * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  return s1 * s1 + s2 * s2 - coefficient * s1 * s2;
}

/** The share of the window's energy in `tone`: a pure tone on its bin gives 1, noise about 2/480. */
function purity(x: Signal, start: number, tone: number): number {
  const total = energy(x, start);
  // Silence holds no tone: no filter pass for it.
  return total === 0 ? 0 : tonePower(x, start, tone) / ((total * WINDOW_SAMPLES) / 2);
}

/** The tone of the symbol starting at `at`, or -1 when its window holds no clear tone. */
function readSymbol(x: Signal, at: number): number {
  const start = at + RAMP_SAMPLES;
  const total = energy(x, start);
  if (total === 0) return -1;
  let best = -1;
  let bestPower = 0;
  for (let tone = 0; tone < TONES; tone++) {
    const power = tonePower(x, start, tone);
    if (power > bestPower) {
      bestPower = power;
      best = tone;
    }
  }
  return bestPower / ((total * WINDOW_SAMPLES) / 2) >= SYMBOL_PURITY ? best : -1;
}

function syncScore(x: Signal, at: number): number {
  let score = 0;
  for (const [i, tone] of SYNC.entries()) score += purity(x, at + i * SYMBOL_SAMPLES + RAMP_SAMPLES, tone);
  return score;
}

/**
 * The sample where the next sync at or after `from` starts, or -1. A coarse scan (every 2 ms) for
 * the four sync tones a symbol apart, then the best alignment of the pattern near it, to the sample.
 */
function findSync(x: Signal, from: number): number {
  const last = x.x.length - SYNC_SAMPLES;
  for (let coarse = from; coarse <= last; coarse += COARSE_STEP) {
    // Short-circuits: a steady tone or speech rarely gets past the first two.
    if (!SYNC.every((tone, i) => purity(x, coarse + i * SYMBOL_SAMPLES + RAMP_SAMPLES, tone) >= TRIGGER_PURITY))
      continue;
    // Scanning forwards, the first grid point that passes lies up to REFINE_SPAN before the true start.
    let best = -1;
    let bestAt = -1;
    const consider = (at: number) => {
      if (at < from || at > last) return;
      const score = syncScore(x, at);
      if (score > best) [best, bestAt] = [score, at];
    };
    for (let at = coarse; at <= coarse + REFINE_SPAN; at += REFINE_STEP) consider(at);
    const around = bestAt;
    for (let at = around - REFINE_STEP + 1; at < around + REFINE_STEP; at++) consider(at);
    if (best >= SYNC.length * SYNC_PURITY) return bestAt;
    coarse += REFINE_SPAN - COARSE_STEP; // that stretch holds no sync: go on past it
  }
  return -1;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The utterance whose sync starts at `at`: its text and where it ends, or null when it does not check out. */
function readMessage(x: Signal, at: number): { text: string; end: number } | null {
  let cursor = at + SYNC_SAMPLES;
  // The last symbol's fall may be cut off: its listening window is enough.
  const fits = (symbols: number) =>
    cursor + (symbols - 1) * SYMBOL_SAMPLES + RAMP_SAMPLES + WINDOW_SAMPLES <= x.x.length;
  const readBytes = (count: number): Uint8Array | null => {
    if (!fits(count * 2)) return null;
    const bytes = new Uint8Array(count);
    for (let i = 0; i < count; i++) {
      const high = readSymbol(x, cursor);
      const low = readSymbol(x, cursor + SYMBOL_SAMPLES);
      if (high < 0 || low < 0) return null;
      bytes[i] = (high << 4) | low;
      cursor += 2 * SYMBOL_SAMPLES;
    }
    return bytes;
  };
  const length = readBytes(2);
  if (!length) return null;
  const byteCount = (length[0]! << 8) | length[1]!;
  if (!fits(2 * byteCount + 4)) return null;
  const payload = readBytes(byteCount);
  const crc = payload && readBytes(2);
  if (!payload || !crc) return null;
  if (((crc[0]! << 8) | crc[1]!) !== crc16(Buffer.concat([length, payload]))) return null;
  try {
    return { text: utf8.decode(payload), end: Math.min(cursor, x.x.length) };
  } catch {
    return null; // a checksum collision on bytes that are no UTF-8
  }
}

/** Utterances joined by a space, unless one side of the seam already has whitespace. */
function joinUtterances(texts: readonly string[]): string {
  let joined = '';
  for (const text of texts) {
    if (!text) continue;
    if (joined && !/\s$/u.test(joined) && !/^\s/u.test(text)) joined += ' ';
    joined += text;
  }
  return joined;
}

/**
 * Every sim-voice utterance in PCM16 24 kHz samples, at any offset, between silence, noise or
 * other sound, joined by spaces (see joinUtterances); null when there is none. An utterance only
 * counts when its sync, every symbol and its CRC-16 check out.
 */
export function decodeSimVoice(samples: Int16Array): string | null {
  const signal = signalOf(samples);
  const texts: string[] = [];
  for (let from = 0; ;) {
    const at = findSync(signal, from);
    if (at < 0) break;
    const message = readMessage(signal, at);
    if (message) texts.push(message.text);
    from = message ? message.end : at + SYMBOL_SAMPLES;
  }
  return texts.length ? joinUtterances(texts) : null;
}
