/** The image formats the gateway reads. */
export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'webp';

/** What an image's first bytes say about it. */
export interface ImageHeader {
  format: ImageFormat;
  mediaType: `image/${ImageFormat}`;
  width: number;
  height: number;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function ascii(bytes: Uint8Array, at: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(at, at + length));
}

function u16be(bytes: Uint8Array, at: number): number {
  return (bytes[at]! << 8) | bytes[at + 1]!;
}

function u16le(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8);
}

function u24le(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16);
}

function u32be(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
}

function png(bytes: Uint8Array): [number, number] | null {
  if (bytes.length < 24 || PNG_SIGNATURE.some((byte, i) => bytes[i] !== byte) || ascii(bytes, 12, 4) !== 'IHDR')
    return null;
  return [u32be(bytes, 16), u32be(bytes, 20)];
}

function gif(bytes: Uint8Array): [number, number] | null {
  const magic = ascii(bytes, 0, 6);
  if (bytes.length < 10 || (magic !== 'GIF87a' && magic !== 'GIF89a')) return null;
  return [u16le(bytes, 6), u16le(bytes, 8)];
}

/** Start-of-frame markers: C0 to CF except DHT (C4), JPG (C8) and DAC (CC). */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

function jpeg(bytes: Uint8Array): [number, number] | null {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  let at = 2;
  while (at + 9 <= bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at += 1; // fill byte before a marker
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      at += 2; // markers without a length
      continue;
    }
    if (isStartOfFrame(marker)) return [u16be(bytes, at + 7), u16be(bytes, at + 5)];
    if (marker === 0xda || marker === 0xd9) return null; // scan data or end before any frame header
    at += 2 + u16be(bytes, at + 2);
  }
  return null;
}

function webp(bytes: Uint8Array): [number, number] | null {
  if (bytes.length < 25 || ascii(bytes, 0, 4) !== 'RIFF' || ascii(bytes, 8, 4) !== 'WEBP') return null;
  const chunk = ascii(bytes, 12, 4);
  if (chunk === 'VP8X') return bytes.length < 30 ? null : [1 + u24le(bytes, 24), 1 + u24le(bytes, 27)];
  if (chunk === 'VP8 ') {
    if (bytes.length < 30 || bytes[23] !== 0x9d || bytes[24] !== 0x01 || bytes[25] !== 0x2a) return null;
    return [u16le(bytes, 26) & 0x3fff, u16le(bytes, 28) & 0x3fff];
  }
  if (chunk === 'VP8L') {
    if (bytes[20] !== 0x2f) return null;
    const [b1, b2, b3, b4] = [bytes[21]!, bytes[22]!, bytes[23]!, bytes[24]!];
    return [1 + (b1 | ((b2 & 0x3f) << 8)), 1 + ((b2 >> 6) | (b3 << 2) | ((b4 & 0x0f) << 10))];
  }
  return null;
}

const READERS: [ImageFormat, (bytes: Uint8Array) => [number, number] | null][] = [
  ['png', png],
  ['jpeg', jpeg],
  ['gif', gif],
  ['webp', webp],
];

/** Reads format and dimensions from an image's header bytes; null when they are no PNG, JPEG, GIF or WebP. */
export function readImageHeader(bytes: Uint8Array): ImageHeader | null {
  for (const [format, read] of READERS) {
    const size = read(bytes);
    if (!size) continue;
    const [width, height] = size;
    return width > 0 && height > 0 ? { format, mediaType: `image/${format}`, width, height } : null;
  }
  return null;
}
