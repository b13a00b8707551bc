import { readWavHeader } from './wav-header.js';

// Int16Array views use the platform's byte order; PCM16 on the wire is little-endian.
const NATIVE_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The samples of PCM16 LE bytes (copied when unaligned or on a big-endian host; an odd last byte is dropped). */
export function pcm16Samples(bytes: Uint8Array): Int16Array {
  const length = bytes.byteLength >> 1;
  if (NATIVE_LITTLE_ENDIAN && bytes.byteOffset % 2 === 0) return new Int16Array(bytes.buffer, bytes.byteOffset, length);
  const copy = Buffer.from(bytes.subarray(0, length * 2));
  if (!NATIVE_LITTLE_ENDIAN) copy.swap16();
  return new Int16Array(copy.buffer, copy.byteOffset, length);
}

/** The PCM16 LE bytes of `samples` (sharing their memory on a little-endian host). */
export function pcm16Bytes(samples: Int16Array): Buffer {
  const bytes = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
  return NATIVE_LITTLE_ENDIAN ? bytes : Buffer.from(bytes).swap16();
}

/**
 * A streaming linear-interpolation resampler: feed it consecutive pieces of one signal and it
 * returns each piece's share of the output (the last input sample is held for the next piece).
 * Linear is plenty for speech going into a speech engine or coming out of one.
 */
export function createPcm16Resampler(fromRate: number, toRate: number): (input: Int16Array) => Int16Array {
  let produced = 0; // output samples so far
  let consumed = 0; // input samples before the current piece
  let last = 0; // the input sample just before the current piece
  return (input) => {
    if (fromRate === toRate) return input;
    const end = consumed + input.length;
    const out = new Int16Array(Math.ceil((input.length * toRate) / fromRate) + 2);
    let count = 0;
    for (;;) {
      // Recomputed from integers so a long stream does not drift.
      const at = (produced * fromRate) / toRate;
      if (at > end - 1) break;
      const index = Math.floor(at);
      const fraction = at - index;
      const a = index < consumed ? last : input[index - consumed]!;
      const b = fraction === 0 ? a : input[index + 1 - consumed]!;
      out[count++] = Math.round(a + (b - a) * fraction);
      produced++;
    }
    if (input.length) last = input[input.length - 1]!;
    consumed = end;
    return out.subarray(0, count);
  };
}

/** All of `samples` resampled from `fromRate` to `toRate` by linear interpolation. */
export function resamplePcm16(samples: Int16Array, fromRate: number, toRate: number): Int16Array {
  return createPcm16Resampler(fromRate, toRate)(samples);
}

/** A WAV file's audio as mono 16-bit samples at its own rate (channels averaged); null unless 16-bit integer PCM. */
export function wavMonoSamples(bytes: Uint8Array): { samples: Int16Array; sampleRate: number } | null {
  const header = readWavHeader(bytes);
  if (!header || header.bitsPerSample !== 16 || (header.formatTag !== 1 && header.formatTag !== 0xfffe)) return null;
  const interleaved = pcm16Samples(bytes.subarray(header.dataOffset, header.dataOffset + header.dataBytes));
  const { channels, sampleRate } = header;
  if (channels === 1) return { samples: interleaved, sampleRate };
  const frames = Math.floor(interleaved.length / channels);
  const samples = new Int16Array(frames);
  for (let frame = 0; frame < frames; frame++) {
    let sum = 0;
    for (let channel = 0; channel < channels; channel++) sum += interleaved[frame * channels + channel]!;
    samples[frame] = Math.round(sum / channels);
  }
  return { samples, sampleRate };
}

/** A complete 16-bit mono PCM WAV file holding `samples` at `sampleRate`. */
export function pcm16Wav(samples: Int16Array, sampleRate: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + samples.byteLength, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(samples.byteLength, 40);
  return Buffer.concat([header, pcm16Bytes(samples)]);
}
