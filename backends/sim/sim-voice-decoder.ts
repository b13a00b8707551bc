// The sim voice's decoder: every utterance in a stretch of PCM16 24 kHz audio (format in
// sim-voice-format.ts). It finds a sync from one pass of 5 ms block sums, aligns it to the sample
// with a sliding DFT, and reads each symbol with the one Goertzel filter its zero crossings point to
// (all 16 only when that tone holds no more than half the window). Cost per realtime turn and the
// method: bench/realtime/decode-cost.ts.
import {
  BIN_STEP,
  crc16,
  FIRST_BIN,
  RAMP_SAMPLES,
  SYMBOL_SAMPLES,
  SYNC,
  SYNC_SAMPLES,
  TONES,
  WINDOW_SAMPLES,
} from './sim-voice-format.js';

// Decoder thresholds, as tone purity: the share of a window's energy in the expected tone (1 = pure).
const TRIGGER_PURITY = 0.5;
const SYNC_PURITY = 0.6;
const SYMBOL_PURITY = 0.3;
// Purity falls to TRIGGER_PURITY about 140 samples off alignment (more before silence); the span covers that.
const REFINE_SPAN = WINDOW_SAMPLES / 2;

const GOERTZEL_COEFFICIENTS = Array.from(
  { length: TONES },
  (_, tone) => 2 * Math.cos((2 * Math.PI * (FIRST_BIN + BIN_STEP * tone)) / WINDOW_SAMPLES),
);

function binOf(tone: number): number {
  return FIRST_BIN + BIN_STEP * tone;
}

/** Σx² over the listening window at `start` (two sums, so the adds need not wait on each other). */
function windowEnergy(x: Int16Array, start: number): number {
  let even = 0;
  let odd = 0;
  for (let n = start; n < start + WINDOW_SAMPLES; n += 2) {
    even += x[n]! * x[n]!;
    odd += x[n + 1]! * x[n + 1]!;
  }
  return even + odd;
}

/** |X|² of `tone`'s bin over the window at `start` (Goertzel). */
function tonePower(x: Int16Array, start: number, tone: number): number {
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
function purity(x: Int16Array, start: number, tone: number): number {
  const total = windowEnergy(x, start);
  // Silence holds no tone: no filter pass for it.
  return total === 0 ? 0 : tonePower(x, start, tone) / ((total * WINDOW_SAMPLES) / 2);
}

/**
 * The tone a window's zero crossings point to: a tone on bin k crosses zero 2k times in the
 * window, 4 more per tone step. Only a guess, which one filter then confirms.
 */
function toneOfCrossings(crossings: number): number {
  const tone = Math.round((crossings - 2 * FIRST_BIN) / (2 * BIN_STEP));
  return Math.min(TONES - 1, Math.max(0, tone));
}

/** The window at `start`'s Σx² (exact: integers far below 2^53, in any order) and zero crossings, in one pass. */
function energyAndCrossings(x: Int16Array, start: number): { energy: number; crossings: number } {
  let energy = x[start]! * x[start]!;
  let crossings = 0;
  let negative = x[start]! < 0;
  for (let n = start + 1; n < start + WINDOW_SAMPLES; n++) {
    const v = x[n]!;
    energy += v * v;
    if (v < 0 !== negative) {
      crossings++;
      negative = !negative;
    }
  }
  return { energy, crossings };
}

/** The tone of the symbol starting at `at`, or -1 when its window holds no clear tone. */
function readSymbol(x: Int16Array, at: number): number {
  const start = at + RAMP_SAMPLES;
  const { energy: total, crossings } = energyAndCrossings(x, start);
  if (total === 0) return -1;
  const scale = (total * WINDOW_SAMPLES) / 2;
  // The bins' shares of a window's energy add up to at most 1 (Parseval), so a tone holding more
  // than half is the strongest of all: one filter on the guessed tone settles a clean symbol, and
  // only an unclear one runs all 16.
  const guess = toneOfCrossings(crossings);
  if (tonePower(x, start, guess) / scale > 0.5) return guess;
  let best = -1;
  let bestPower = 0;
  for (let tone = 0; tone < TONES; tone++) {
    const power = tonePower(x, start, tone);
    if (power > bestPower) {
      bestPower = power;
      best = tone;
    }
  }
  return bestPower / scale >= SYMBOL_PURITY ? best : -1;
}

/** cos and sin of each tone's bin over one listening window, for the sliding DFT and the block sums. */
const BIN_COS = Array.from({ length: TONES }, (_, tone) =>
  Float64Array.from({ length: WINDOW_SAMPLES }, (_, n) => Math.cos((2 * Math.PI * binOf(tone) * n) / WINDOW_SAMPLES)),
);
const BIN_SIN = Array.from({ length: TONES }, (_, tone) =>
  Float64Array.from({ length: WINDOW_SAMPLES }, (_, n) => Math.sin((2 * Math.PI * binOf(tone) * n) / WINDOW_SAMPLES)),
);

/**
 * `tone`'s purity in the `count` windows starting at `start`, `start + 1`, …: one DFT, then a
 * sliding DFT (X(m+1) = (X(m) − x[m] + x[m+W])·e^{iωk}, exact on an integer bin) and a running energy,
 * a few operations per position instead of a pass over the window.
 */
function slidingPurity(x: Int16Array, tone: number, start: number, count: number): Float64Array {
  const cos = BIN_COS[tone]!;
  const sin = BIN_SIN[tone]!;
  let re = 0;
  let im = 0;
  let energy = 0;
  for (let n = 0; n < WINDOW_SAMPLES; n++) {
    const v = x[start + n]!;
    re += v * cos[n]!;
    im -= v * sin[n]!;
    energy += v * v;
  }
  const stepCos = cos[1]!;
  const stepSin = sin[1]!;
  const out = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    out[i] = energy === 0 ? 0 : (re * re + im * im) / ((energy * WINDOW_SAMPLES) / 2);
    if (i === count - 1) break;
    const leaving = x[start + i]!;
    const entering = x[start + i + WINDOW_SAMPLES]!;
    energy += entering * entering - leaving * leaving;
    const shiftedRe = re - leaving + entering;
    re = shiftedRe * stepCos - im * stepSin;
    im = shiftedRe * stepSin + im * stepCos;
  }
  return out;
}

/**
 * The first sync tone's DFT and the energy of every 5 ms block of the signal: a window on the
 * block grid is then four sums, so the sync search looks at every 5 ms for the price of one pass.
 * Each block is summed the first time the search reads it: the search skips the utterances it
 * reads (most of a turn), and their blocks are never summed.
 */
interface SyncBlocks {
  x: Int16Array;
  re: Float64Array;
  im: Float64Array;
  energy: Float64Array;
  /** 1 where the block is summed. */
  summed: Uint8Array;
}

const BLOCK_SAMPLES = 120;
const BLOCKS_PER_WINDOW = WINDOW_SAMPLES / BLOCK_SAMPLES;
/** A block's DFT is phased from its own start: block i of a window turns by e^{-iπk·i/2} (k even: ±1). */
const BLOCK_SIGN = Array.from({ length: BLOCKS_PER_WINDOW }, (_, i) => (((binOf(SYNC[0]) / 2) * i) % 2 === 0 ? 1 : -1));

function syncBlocks(x: Int16Array): SyncBlocks {
  const count = Math.floor(x.length / BLOCK_SAMPLES);
  return {
    x,
    re: new Float64Array(count),
    im: new Float64Array(count),
    energy: new Float64Array(count),
    summed: new Uint8Array(count),
  };
}

const SYNC_COS = BIN_COS[SYNC[0]]!;
const SYNC_SIN = BIN_SIN[SYNC[0]]!;

/** Sums block `b` (within the signal). */
function sumBlock(blocks: SyncBlocks, b: number): void {
  const { x } = blocks;
  const cos = SYNC_COS;
  const sin = SYNC_SIN;
  // Two samples a turn into separate sums: the adds of one need not wait on the other's.
  let re = 0;
  let im = 0;
  let energy = 0;
  let re2 = 0;
  let im2 = 0;
  let energy2 = 0;
  for (let n = 0, at = b * BLOCK_SAMPLES; n < BLOCK_SAMPLES; n += 2, at += 2) {
    const v = x[at]!;
    const w = x[at + 1]!;
    re += v * cos[n]!;
    im += v * sin[n]!;
    energy += v * v;
    re2 += w * cos[n + 1]!;
    im2 += w * sin[n + 1]!;
    energy2 += w * w;
  }
  blocks.re[b] = re + re2;
  blocks.im[b] = -(im + im2);
  blocks.energy[b] = energy + energy2;
  blocks.summed[b] = 1;
}

/** The first sync tone's purity in the window starting at block `b`. */
function blockPurity(blocks: SyncBlocks, b: number): number {
  const end = Math.min(b + BLOCKS_PER_WINDOW, blocks.summed.length);
  for (let i = b; i < end; i++) if (blocks.summed[i] === 0) sumBlock(blocks, i);
  let re = 0;
  let im = 0;
  let energy = 0;
  for (let i = 0; i < BLOCKS_PER_WINDOW; i++) {
    re += BLOCK_SIGN[i]! * blocks.re[b + i]!;
    im += BLOCK_SIGN[i]! * blocks.im[b + i]!;
    energy += blocks.energy[b + i]!;
  }
  return energy === 0 ? 0 : (re * re + im * im) / ((energy * WINDOW_SAMPLES) / 2);
}

/** The sample in [lo, hi] where the sync pattern fits best, and its score (purities summed, 4 at most). */
function bestSync(x: Int16Array, lo: number, hi: number): { at: number; score: number } {
  const count = hi - lo + 1;
  const scores = new Float64Array(count);
  SYNC.forEach((tone, i) => {
    const purities = slidingPurity(x, tone, lo + i * SYMBOL_SAMPLES + RAMP_SAMPLES, count);
    for (let p = 0; p < count; p++) scores[p]! += purities[p]!;
  });
  let best = 0;
  for (let p = 1; p < count; p++) if (scores[p]! > scores[best]!) best = p;
  return { at: lo + best, score: scores[best]! };
}

/**
 * The sample where the next sync at or after `from` starts, or -1. A scan every 5 ms for the four
 * sync tones a symbol apart (the first from the block sums), then the best alignment of the pattern
 * near it, to the sample.
 */
function findSync(x: Int16Array, blocks: SyncBlocks, from: number): number {
  const last = x.length - SYNC_SAMPLES;
  for (let b = Math.max(0, Math.floor(from / BLOCK_SAMPLES)); ; b++) {
    const coarse = b * BLOCK_SAMPLES - RAMP_SAMPLES; // the symbol start whose window is block b's
    if (coarse > last) return -1;
    if (coarse < 0 || blockPurity(blocks, b) < TRIGGER_PURITY) continue;
    // Short-circuits: a steady tone or speech rarely gets past the first two.
    if (
      !SYNC.every((tone, i) => i === 0 || purity(x, coarse + i * SYMBOL_SAMPLES + RAMP_SAMPLES, tone) >= TRIGGER_PURITY)
    )
      continue;
    // The first grid window that passes lies up to REFINE_SPAN before the true start, or half a block after it.
    const lo = Math.max(from, coarse - BLOCK_SAMPLES);
    const hi = Math.min(last, coarse + REFINE_SPAN);
    // Past the end of the last utterance read, less than a sync's length may remain: nothing to align.
    if (lo > hi) return -1;
    const { at, score } = bestSync(x, lo, hi);
    if (score >= SYNC.length * SYNC_PURITY) return at;
    b += REFINE_SPAN / BLOCK_SAMPLES - 1; // that stretch holds no sync: go on past it
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The utterance whose sync starts at `at`: its text and where it ends, or null when it does not check out. */
function readMessage(x: Int16Array, at: number): { text: string; end: number } | null {
  let cursor = at + SYNC_SAMPLES;
  // The last symbol's fall may be cut off: its listening window is enough.
  const fits = (symbols: number) => cursor + (symbols - 1) * SYMBOL_SAMPLES + RAMP_SAMPLES + WINDOW_SAMPLES <= x.length;
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
    return { text: utf8.decode(payload), end: Math.min(cursor, x.length) };
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
  const blocks = syncBlocks(samples);
  const texts: string[] = [];
  for (let from = 0; ;) {
    const at = findSync(samples, blocks, from);
    if (at < 0) break;
    const message = readMessage(samples, at);
    if (message) texts.push(message.text);
    from = message ? message.end : at + SYMBOL_SAMPLES;
  }
  return texts.length ? joinUtterances(texts) : null;
}
