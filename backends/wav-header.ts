import { fourCC } from '../protocols/media-sniff.js';

/** The format and data extent of a RIFF/WAVE file. */
export interface WavHeader {
  /** WAVE format tag: 1 PCM, 3 IEEE float, 0xFFFE extensible, others compressed. */
  formatTag: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  /** Bytes of audio per second, as the header declares it. */
  byteRate: number;
  /** Where the `data` chunk's samples start. */
  dataOffset: number;
  /** Sample bytes present (a streaming header's placeholder size is clamped to what arrived). */
  dataBytes: number;
}

/**
 * Reads a WAV header; null when the bytes are no RIFF/WAVE with a `fmt ` chunk before `data`.
 * Hand-written because the media sniffer only says "WAV": the format and data extent come from
 * walking the chunks, synchronously, as a stream's first bytes arrive (`WavStreamDecoder`).
 */
export function readWavHeader(bytes: Uint8Array): WavHeader | null {
  if (bytes.length < 12 || fourCC(bytes, 0) !== 'RIFF' || fourCC(bytes, 8) !== 'WAVE') return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let format: Omit<WavHeader, 'dataOffset' | 'dataBytes'> | null = null;
  let at = 12;
  while (at + 8 <= bytes.length) {
    const id = fourCC(bytes, at);
    const size = view.getUint32(at + 4, true);
    const body = at + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > bytes.length) return null;
      format = {
        formatTag: view.getUint16(body, true),
        channels: view.getUint16(body + 2, true),
        sampleRate: view.getUint32(body + 4, true),
        byteRate: view.getUint32(body + 8, true),
        bitsPerSample: view.getUint16(body + 14, true),
      };
      if (format.channels === 0 || format.sampleRate === 0 || format.byteRate === 0) return null;
    } else if (id === 'data') {
      if (!format) return null;
      return { ...format, dataOffset: body, dataBytes: Math.min(size, bytes.length - body) };
    }
    at = body + size + (size % 2); // chunks are padded to an even length
  }
  return null;
}
