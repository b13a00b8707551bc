// The sim's "voice": text carried as tones in PCM16 24 kHz, so the sim transcriber can read back
// exactly what the sim speech backend said, and tests can run a whole voice loop with no engines.
//
// An utterance is a run of 30 ms symbols, each one of 16 tones (700 to 2200 Hz, 100 Hz apart)
// shaped by a 5 ms raised-cosine rise and fall: sync (4 fixed tones), byte length (16 bits),
// the text's UTF-8 bytes (two 4-bit symbols each, high nibble first), CRC-16 of length and bytes.
// Tones sit on exact bins of the 20 ms flat middle of a symbol, so a Goertzel filter there sees
// one tone and nothing of the others. The format's constants are in sim-voice-format.ts, the
// decoder in sim-voice-decoder.ts.
import { pcm16Bytes } from '../pcm16-samples.js';
import {
  BIN_HZ,
  BIN_STEP,
  crc16,
  FIRST_BIN,
  FRAMING_SYMBOLS,
  RAMP_SAMPLES,
  SAMPLE_RATE,
  SIM_VOICE_MAX_BYTES,
  SYMBOL_SAMPLES,
  SYNC,
  TARGET_RMS,
  TONES,
} from './sim-voice-format.js';

export { SIM_VOICE_MAX_BYTES } from './sim-voice-format.js';
export { decodeSimVoice } from './sim-voice-decoder.js';

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
