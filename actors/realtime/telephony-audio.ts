import alawmulaw from 'alawmulaw';

// Telephony audio at the edge of a call: G.711 µ-law (`audio/pcmu`) and A-law (`audio/pcma`) at
// 8 kHz, as phone bridges send it, converted to and from the PCM16 at 24 kHz everything inside
// works on (VAD, transcription, speech, billing), so a second of phone audio is a second of audio.

/** A call's audio format on the wire, one per direction. */
export type AudioFormat = 'pcm' | 'pcmu' | 'pcma';

/** Samples of 24 kHz per sample of 8 kHz. */
const RATIO = 3;

const codecOf = (format: 'pcmu' | 'pcma') => (format === 'pcmu' ? alawmulaw.mulaw : alawmulaw.alaw);

const samplesOf = (pcm: Buffer): Int16Array => {
  // Int16Array needs an even byte offset: copy when the buffer is not aligned.
  const aligned = pcm.byteOffset % 2 === 0 ? pcm : Buffer.from(pcm);
  return new Int16Array(aligned.buffer, aligned.byteOffset, Math.floor(aligned.length / 2));
};

/**
 * Caller audio as PCM16 24 kHz: G.711 decoded, then each 8 kHz sample stretched to three by
 * linear interpolation from the sample before (kept across frames by `previous`).
 */
export class TelephonyDecoder {
  private previous = 0;

  /** `bytes` in `format` as PCM16 24 kHz (PCM passes through). */
  decode(bytes: Buffer, format: AudioFormat): Buffer {
    if (format === 'pcm') return bytes;
    const narrow = codecOf(format).decode(bytes);
    const wide = new Int16Array(narrow.length * RATIO);
    let previous = this.previous;
    for (let i = 0; i < narrow.length; i++) {
      const sample = narrow[i]!;
      for (let k = 1; k <= RATIO; k++) wide[i * RATIO + k - 1] = previous + ((sample - previous) * k) / RATIO;
      previous = sample;
    }
    this.previous = previous;
    return Buffer.from(wide.buffer, wide.byteOffset, wide.byteLength);
  }
}

/** PCM16 24 kHz as `format`: each three samples averaged (a simple low-pass) to one at 8 kHz, then G.711 encoded. */
export function encodeTelephony(pcm: Buffer, format: AudioFormat): Buffer {
  if (format === 'pcm') return pcm;
  const wide = samplesOf(pcm);
  const narrow = new Int16Array(Math.floor(wide.length / RATIO));
  for (let i = 0; i < narrow.length; i++)
    narrow[i] = Math.round((wide[i * RATIO]! + wide[i * RATIO + 1]! + wide[i * RATIO + 2]!) / RATIO);
  const encoded = codecOf(format).encode(narrow);
  return Buffer.from(encoded.buffer, encoded.byteOffset, encoded.byteLength);
}
