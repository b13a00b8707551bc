// The sim voice's format, shared by its encoder (sim-voice-codec.ts) and decoder
// (sim-voice-decoder.ts): symbol timing, the tones' bins, the sync pattern and the checksum.

export const SAMPLE_RATE = 24_000;
export const SYMBOL_SAMPLES = 720; // 30 ms
export const RAMP_SAMPLES = 120; // 5 ms rise and 5 ms fall
export const WINDOW_SAMPLES = SYMBOL_SAMPLES - 2 * RAMP_SAMPLES; // the flat middle the decoder listens to
export const BIN_HZ = SAMPLE_RATE / WINDOW_SAMPLES; // 50 Hz
export const TONES = 16;
export const FIRST_BIN = 14; // 700 Hz
export const BIN_STEP = 2; // 100 Hz between tones: a sync found a few samples off still reads cleanly
export const SYNC = [1, 14, 4, 11] as const;
export const SYNC_SAMPLES = SYNC.length * SYMBOL_SAMPLES;
/** Symbols besides the text's: sync, 4 for the length, 4 for the checksum. */
export const FRAMING_SYMBOLS = SYNC.length + 8;
/** Speech-like loudness: about -20 dBFS RMS over a symbol. */
export const TARGET_RMS = 0.1 * 32_768;

/** The longest text one utterance carries, in UTF-8 bytes (a 16-bit length; about 65 minutes of speech). */
export const SIM_VOICE_MAX_BYTES = 0xffff;

/** CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF). */
export function crc16(bytes: Uint8Array): number {
  let crc = 0xffff;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}
