import type { Sharp } from 'sharp';
import { loadSharp } from './sharp-module.js';

/** How a finished image is written. */
export interface ImageEncoding {
  width: number;
  height: number;
  format: 'png' | 'jpeg' | 'webp';
  /** 0 to 100, or null for the encoder's default. */
  compression: number | null;
  background: 'transparent' | 'opaque';
}

/** The Content-Type of each output format. */
export const IMAGE_CONTENT_TYPES = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;

/**
 * Encodes `image` as asked, at exactly `width`×`height` (a different size is resized to cover
 * and cropped, so the requested geometry always holds). `compression` is JPEG/WebP quality
 * (100 − compression, as OpenAI's `output_compression` means) and PNG zlib effort; an opaque
 * image is flattened on white so no alpha channel is left.
 */
export async function encodeImage(
  image: Buffer | Sharp,
  encoding: ImageEncoding,
): Promise<{ bytes: Buffer; contentType: string; width: number; height: number }> {
  const pipeline = Buffer.isBuffer(image) ? (await loadSharp())(image) : image;
  const { width, height, format, compression, background } = encoding;
  pipeline.resize({ width, height, fit: 'cover' });
  if (background === 'opaque' || format === 'jpeg') pipeline.flatten({ background: '#ffffff' });
  const quality = compression === null ? undefined : Math.max(1, 100 - compression);
  if (format === 'png')
    pipeline.png({ compressionLevel: compression === null ? 6 : Math.round((compression / 100) * 9) });
  else if (format === 'jpeg') pipeline.jpeg({ quality: quality ?? 90, mozjpeg: false });
  else pipeline.webp({ quality: quality ?? 90, alphaQuality: 100 });
  const { data, info } = await pipeline.toBuffer({ resolveWithObject: true });
  return { bytes: data, contentType: IMAGE_CONTENT_TYPES[format], width: info.width, height: info.height };
}
