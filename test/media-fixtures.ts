// Tiny, structurally valid media built from bytes, for the media parsing and part resolution suites.
import { deflateSync, crc32 } from 'node:zlib';

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** A complete RGB PNG of the given size (every pixel `shade`). */
export function png(width: number, height: number, shade = 0x80): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.alloc(1 + width * 3, shade);
  row[0] = 0; // filter: none
  const pixels = deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', pixels),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A JPEG header: SOI, a JFIF APP0 segment, a start-of-frame (`sof` 0xC0 baseline, 0xC2 progressive), EOI. */
export function jpeg(width: number, height: number, sof = 0xc0): Buffer {
  const app0 = Buffer.from([
    0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00,
  ]);
  const frame = Buffer.from([
    0xff,
    sof,
    0x00,
    0x11,
    0x08,
    height >> 8,
    height & 0xff,
    width >> 8,
    width & 0xff,
    0x03,
    1,
    0x22,
    0,
    2,
    0x11,
    1,
    3,
    0x11,
    1,
  ]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, frame, Buffer.from([0xff, 0xd9])]);
}

/** A GIF89a with a logical screen of the given size, no frames. */
export function gif(width: number, height: number): Buffer {
  const screen = Buffer.alloc(7);
  screen.writeUInt16LE(width, 0);
  screen.writeUInt16LE(height, 2);
  return Buffer.concat([Buffer.from('GIF89a', 'latin1'), screen, Buffer.from([0x3b])]);
}

function riff(form: string, body: Buffer): Buffer {
  const head = Buffer.alloc(12);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(4 + body.length, 4);
  head.write(form, 8, 'latin1');
  return Buffer.concat([head, body]);
}

function riffChunk(id: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(id, 0, 'latin1');
  head.writeUInt32LE(data.length, 4);
  return Buffer.concat([head, data, data.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

/** A WebP header in one of its three encodings: extended (VP8X), lossy (VP8) or lossless (VP8L). */
export function webp(width: number, height: number, kind: 'VP8X' | 'VP8' | 'VP8L' = 'VP8X'): Buffer {
  let data: Buffer;
  if (kind === 'VP8X') {
    data = Buffer.alloc(10);
    data.writeUIntLE(width - 1, 4, 3);
    data.writeUIntLE(height - 1, 7, 3);
  } else if (kind === 'VP8') {
    data = Buffer.alloc(10);
    data.set([0x9d, 0x01, 0x2a], 3);
    data.writeUInt16LE(width, 6);
    data.writeUInt16LE(height, 8);
  } else {
    data = Buffer.alloc(5);
    data[0] = 0x2f;
    data.writeUInt32LE(((width - 1) | ((height - 1) << 14)) >>> 0, 1);
  }
  return riff('WEBP', riffChunk(kind === 'VP8' ? 'VP8 ' : kind, data));
}

/** 16-bit mono PCM samples of a deterministic tone, `seconds` long at `rate`. */
export function pcm16(seconds: number, rate = 24_000, pitch = 440): Buffer {
  const samples = Math.round(seconds * rate);
  const out = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++)
    out.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * pitch * i) / rate)), i * 2);
  return out;
}

/** A PCM WAV file (16-bit mono) of the given length. */
export function wav(seconds: number, rate = 16_000, pitch = 440): Buffer {
  const fmt = Buffer.alloc(16);
  fmt.writeUInt16LE(1, 0);
  fmt.writeUInt16LE(1, 2);
  fmt.writeUInt32LE(rate, 4);
  fmt.writeUInt32LE(rate * 2, 8);
  fmt.writeUInt16LE(2, 12);
  fmt.writeUInt16LE(16, 14);
  return riff('WAVE', Buffer.concat([riffChunk('fmt ', fmt), riffChunk('data', pcm16(seconds, rate, pitch))]));
}

function box(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length, 0);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, body]);
}

/** An MP4 skeleton: ftyp, then moov with mvhd (duration) and one video trak's tkhd (size), then some mdat. */
export function mp4(width: number, height: number, seconds: number, payload = 256): Buffer {
  const mvhd = Buffer.alloc(100);
  mvhd.writeUInt32BE(1000, 12); // timescale
  mvhd.writeUInt32BE(Math.round(seconds * 1000), 16);
  const tkhd = Buffer.alloc(84);
  tkhd.writeUInt32BE(width << 16, 76);
  tkhd.writeUInt32BE(height << 16, 80);
  const ftyp = box('ftyp', Buffer.from('isom\0\0\x02\0isomiso2mp41', 'latin1'));
  const mdat = box('mdat', Buffer.alloc(payload, 7));
  return Buffer.concat([ftyp, box('moov', box('mvhd', mvhd), box('trak', box('tkhd', tkhd))), mdat]);
}

/** A WebM (EBML) header with no duration, padded to `bytes`. */
export function webm(bytes: number): Buffer {
  const head = Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x84, ...Buffer.from('webm', 'latin1')]);
  return Buffer.concat([head, Buffer.alloc(Math.max(0, bytes - head.length), 1)]);
}

/** An AVI header whose avih declares `frames` frames at `fps` and a size. */
export function avi(width: number, height: number, frames: number, fps = 25): Buffer {
  const avih = Buffer.alloc(56);
  avih.writeUInt32LE(Math.round(1e6 / fps), 0);
  avih.writeUInt32LE(frames, 16);
  avih.writeUInt32LE(width, 32);
  avih.writeUInt32LE(height, 36);
  const hdrl = Buffer.concat([Buffer.from('hdrl', 'latin1'), riffChunk('avih', avih)]);
  return riff('AVI ', riffChunk('LIST', hdrl));
}

/** A `data:` URL of bytes. */
export function dataUrl(mediaType: string, bytes: Buffer): string {
  return `data:${mediaType};base64,${bytes.toString('base64')}`;
}
