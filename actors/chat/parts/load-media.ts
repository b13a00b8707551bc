import { formatBytes } from './media-labels.js';
import { base64DecodedLength, decodeBase64, parseDataUrl } from './base64-payload.js';
import { fetchRemote, type RemoteFetchLimits } from './fetch-remote.js';
import { partError, type PartRef } from './part-errors.js';

/** What a URL should hold. */
export type MediaKind = 'image' | 'video';

/** Where media for a part may come from, and within which limits. */
export interface MediaRequest extends PartRef {
  kind: MediaKind;
  limits: RemoteFetchLimits;
  signal: AbortSignal;
}

/** Media bytes and the type their source declared (null when it declared none). */
export interface LoadedMedia {
  bytes: Buffer;
  mediaType: string | null;
}

const DATA_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/jpg', 'image/pjpeg', 'image/gif', 'image/webp']);
const UNTYPED = new Set(['', 'application/octet-stream', 'binary/octet-stream']);
const VIDEO_APPLICATION_TYPES = new Set(['application/mp4', 'application/x-matroska']);

function fitsKind(kind: MediaKind, mediaType: string, fromDataUrl: boolean): boolean {
  if (UNTYPED.has(mediaType)) return true;
  if (kind === 'image') return fromDataUrl ? DATA_IMAGE_TYPES.has(mediaType) : mediaType.startsWith('image/');
  return mediaType.startsWith('video/') || VIDEO_APPLICATION_TYPES.has(mediaType);
}

/**
 * Decodes inline base64 media for a part: refuses data over `maxBytes` before decoding, bad
 * base64 and empty payloads, each as a 400 naming the field.
 */
export function decodeInlineMedia(base64: string, ref: PartRef, maxBytes: number): Buffer {
  if (base64DecodedLength(base64) > maxBytes)
    throw partError(ref, `${capitalised(ref.label)} is larger than the ${formatBytes(maxBytes)} limit.`);
  const bytes = decodeBase64(base64);
  if (!bytes) throw partError(ref, `${capitalised(ref.label)} is not valid base64.`);
  if (bytes.length === 0) throw partError(ref, `${capitalised(ref.label)} is empty.`);
  return bytes;
}

function capitalised(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}

function fromDataUrl(url: string, request: MediaRequest): LoadedMedia {
  const data = parseDataUrl(url);
  if (!data) throw partError(request, `${capitalised(request.label)} is a data: URL without a ;base64 payload.`);
  if (!fitsKind(request.kind, data.mediaType, true)) {
    const wanted = request.kind === 'image' ? 'image/png, image/jpeg, image/gif or image/webp' : 'a video/* type';
    throw partError(request, `${capitalised(request.label)} has type ${data.mediaType}; use ${wanted}.`);
  }
  return { bytes: decodeInlineMedia(data.base64, request, request.limits.maxBytes), mediaType: data.mediaType || null };
}

/**
 * Loads the bytes behind a part's URL: a base64 `data:` URL or an http(s) URL fetched within the
 * limits. Refuses other schemes, a declared type of the wrong kind (a web page where an image
 * belongs) and empty bodies, each as a 400 naming the field.
 */
export async function loadMedia(url: string, request: MediaRequest): Promise<LoadedMedia> {
  if (/^data:/i.test(url)) return fromDataUrl(url, request);
  const target = URL.canParse(url) ? new URL(url) : null;
  if (!target) throw partError(request, `Cannot fetch ${request.label}: the URL is not valid.`);
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw partError(
      request,
      `Cannot fetch ${request.label}: the ${target.protocol} scheme is not supported; use an http(s) or data: URL.`,
    );
  }
  const accept = request.kind === 'image' ? 'image/png, image/jpeg, image/gif, image/webp' : 'video/*';
  const fetched = await fetchRemote(target, {
    limits: request.limits,
    signal: request.signal,
    label: request.label,
    param: request.param,
    accept,
  });
  const mediaType = fetched.contentType?.split(';')[0]!.trim().toLowerCase() ?? '';
  if (!fitsKind(request.kind, mediaType, false))
    throw partError(
      request,
      `Cannot read ${request.label}: the server sent ${mediaType}, not ${request.kind === 'image' ? 'an image' : 'a video'}.`,
    );
  if (fetched.bytes.length === 0)
    throw partError(request, `Cannot read ${request.label}: the server sent an empty body.`);
  return { bytes: fetched.bytes, mediaType: mediaType || null };
}
