import { createPcm16Resampler, pcm16Bytes, pcm16Samples } from './pcm16-samples.js';
import { readWavHeader } from './wav-header.js';

/** A header not found within this many bytes is not coming. */
const MAX_HEADER_BYTES = 4096;

/**
 * Turns a 16-bit mono PCM WAV arriving in pieces (a speech engine's stdout, whose header sizes
 * are placeholders) into PCM16 LE at `toRate`, piece by piece. `push` returns the audio that piece
 * completes (possibly empty) and throws Error when the stream is no such WAV.
 */
export class WavStreamDecoder {
  private head: Buffer | null = Buffer.alloc(0);
  private carry: Buffer | null = null;
  private resample: ((input: Int16Array) => Int16Array) | null = null;

  constructor(private readonly toRate: number) {}

  /** The PCM16 LE (at `toRate`, an even number of bytes) that `data` completes. */
  push(data: Buffer): Buffer {
    let body = data;
    if (this.head) {
      this.head = Buffer.concat([this.head, data]);
      const header = readWavHeader(this.head);
      if (!header) {
        if (this.head.length > MAX_HEADER_BYTES)
          throw new Error('not a WAV stream (no RIFF/WAVE header with fmt and data chunks)');
        return Buffer.alloc(0);
      }
      if (header.formatTag !== 1 || header.bitsPerSample !== 16 || header.channels !== 1) {
        throw new Error(
          `unsupported WAV stream: format ${header.formatTag}, ${header.bitsPerSample}-bit, ${header.channels} channels (want 16-bit mono PCM)`,
        );
      }
      this.resample = createPcm16Resampler(header.sampleRate, this.toRate);
      body = this.head.subarray(header.dataOffset);
      this.head = null;
    }
    // A piece may end mid-sample: keep the odd byte for the next.
    if (this.carry) body = Buffer.concat([this.carry, body]);
    this.carry = body.length % 2 ? Buffer.from(body.subarray(body.length - 1)) : null;
    const samples = pcm16Samples(body.subarray(0, body.length - (body.length % 2)));
    const out = this.resample!(samples);
    // At the same rate the resampler hands back its input, a view of the caller's buffer.
    return out === samples ? Buffer.from(pcm16Bytes(out)) : pcm16Bytes(out);
  }
}
