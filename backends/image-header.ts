import { imageSize } from 'image-size';

/** The image formats the gateway reads. */
export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'webp';

/** What an image's first bytes say about it. */
export interface ImageHeader {
  format: ImageFormat;
  mediaType: `image/${ImageFormat}`;
  width: number;
  height: number;
}

/** image-size's type names for the formats we read. */
const FORMATS = new Map<string, ImageFormat>([
  ['png', 'png'],
  ['jpg', 'jpeg'],
  ['gif', 'gif'],
  ['webp', 'webp'],
]);

/**
 * The bytes as image-size may read them. It reads through DataViews over the whole underlying
 * ArrayBuffer, so a view into a larger one (Node's pooled small Buffers, a slice of a body) would
 * let a truncated header read its neighbour's bytes; such a view is copied first.
 */
function ownBuffer(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
}

/**
 * Reads format and dimensions from an image's header bytes with the `image-size` library, which
 * reads them synchronously (image checks run inside synchronous request validation); null when
 * they are no PNG, JPEG, GIF or WebP, or declare no size.
 */
export function readImageHeader(bytes: Uint8Array): ImageHeader | null {
  let size: ReturnType<typeof imageSize>;
  try {
    size = imageSize(ownBuffer(bytes));
  } catch {
    // Unknown, truncated or corrupt: image-size throws, and to us it is no readable image.
    return null;
  }
  const format = FORMATS.get(size.type ?? '');
  const { width, height } = size;
  if (!format || !(width > 0) || !(height > 0)) return null;
  return { format, mediaType: `image/${format}`, width, height };
}
