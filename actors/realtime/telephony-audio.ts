import alawmulaw from 'alawmulaw';

// Telephony audio at the edge of a call: G.711 µ-law (`audio/pcmu`) and A-law (`audio/pcma`) at
// 8 kHz, as phone bridges send it, converted to and from the PCM16 at 24 kHz everything inside
// works on (VAD, transcription, speech, billing), so a second of phone audio is a second of audio.

/** A call's audio format on the wire, one per direction. */
export type AudioFormat = 'pcm' | 'pcmu' | 'pcma';

/** Samples of 24 kHz per sample of 8 kHz. */
const RATIO = 3;

type G711 = 'pcmu' | 'pcma';
const codecOf = (format: G711) => (format === 'pcmu' ? alawmulaw.mulaw : alawmulaw.alaw);

// The library's codecs as tables, built on first use: a frame is converted by lookups, with no
// intermediate arrays (the library's `decode`/`encode` make one per frame).
const decodeTables = new Map<G711, Int16Array>();
const encodeTables = new Map<G711, Uint8Array>();

function decodeTable(format: G711): Int16Array {
  let table = decodeTables.get(format);
  if (!table) {
    const codec = codecOf(format);
    table = Int16Array.from({ length: 256 }, (_, code) => codec.decodeSample(code));
    decodeTables.set(format, table);
  }
  return table;
}

/** Indexed by a sample's 16 bits (`sample & 0xffff`). */
function encodeTable(format: G711): Uint8Array {
  let table = encodeTables.get(format);
  if (!table) {
    const codec = codecOf(format);
    table = Uint8Array.from({ length: 65_536 }, (_, bits) => codec.encodeSample((bits << 16) >> 16));
    encodeTables.set(format, table);
  }
  return table;
}

/**
 * Caller audio as PCM16 24 kHz: G.711 decoded, then each 8 kHz sample stretched to three by
 * linear interpolation from the sample before (kept across frames by `previous`).
 */
export class TelephonyDecoder {
  private previous = 0;

  /** `bytes` in `format` as PCM16 24 kHz (PCM passes through). */
  decode(bytes: Buffer, format: AudioFormat): Buffer {
    if (format === 'pcm') return bytes;
    const table = decodeTable(format);
    const wide = new Int16Array(bytes.length * RATIO);
    let previous = this.previous;
    for (let i = 0; i < bytes.length; i++) {
      const sample = table[bytes[i]!]!;
      for (let k = 1; k <= RATIO; k++) wide[i * RATIO + k - 1] = previous + ((sample - previous) * k) / RATIO;
      previous = sample;
    }
    this.previous = previous;
    return Buffer.from(wide.buffer, wide.byteOffset, wide.byteLength);
  }
}

const samplesOf = (pcm: Buffer): Int16Array => {
  // Int16Array needs an even byte offset: copy when the buffer is not aligned.
  const aligned = pcm.byteOffset % 2 === 0 ? pcm : Buffer.from(pcm);
  return new Int16Array(aligned.buffer, aligned.byteOffset, Math.floor(aligned.length / 2));
};

/** PCM16 24 kHz as `format`: each three samples averaged (a simple low-pass) to one at 8 kHz, then G.711 encoded. */
export function encodeTelephony(pcm: Buffer, format: AudioFormat): Buffer {
  if (format === 'pcm') return pcm;
  const table = encodeTable(format);
  const wide = samplesOf(pcm);
  const out = Buffer.allocUnsafe(Math.floor(wide.length / RATIO));
  for (let i = 0; i < out.length; i++) {
    const sum = wide[i * RATIO]! + wide[i * RATIO + 1]! + wide[i * RATIO + 2]!;
    out[i] = table[Math.round(sum / RATIO) & 0xffff]!;
  }
  return out;
}
