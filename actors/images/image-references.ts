import { readImageHeader, type ImageHeader } from '../../backends/image-header.js';
import { ApiError } from '../../protocols/errors.js';
import type { InputReference } from '../../protocols/images.js';
import { fieldError } from '../../protocols/validation.js';
import type { RemoteFetchLimits } from '../chat/parts/fetch-remote.js';
import { loadMedia } from '../chat/parts/load-media.js';

/** The largest reference image or mask, in bytes. */
export const MAX_REFERENCE_BYTES = 25 * 1024 * 1024;

/** A reference image, checked: its bytes and what its header says. */
export interface ReferenceImage {
  data: Buffer;
  header: ImageHeader;
}

/** Where stored files are read from (the files feature). */
export interface ReferenceFiles {
  content(accountId: string, fileId: string): { record: { bytes: number }; body: { chunks: AsyncIterable<Buffer> } };
}

/** Checks that `data` is a PNG, JPEG, GIF or WebP within the size limit; 422 at `loc` otherwise. */
export function checkReference(data: Buffer, loc: (string | number)[]): ReferenceImage {
  if (data.length === 0) throw fieldError(['body', ...loc], 'the image is empty');
  if (data.length > MAX_REFERENCE_BYTES)
    throw fieldError(['body', ...loc], `the image is larger than ${MAX_REFERENCE_BYTES} bytes`);
  const header = readImageHeader(data);
  if (!header) throw fieldError(['body', ...loc], 'not a PNG, JPEG, GIF or WebP image');
  return { data, header };
}

async function readFile(
  files: ReferenceFiles,
  accountId: string,
  fileId: string,
  loc: (string | number)[],
): Promise<Buffer> {
  let content: ReturnType<ReferenceFiles['content']>;
  try {
    content = files.content(accountId, fileId);
  } catch (err) {
    if (err instanceof ApiError && err.code === 'not_found')
      throw new ApiError('not_found', `No file ${fileId.slice(0, 100)} (in ${loc.join('.')}).`, {
        param: loc.join('.'),
      });
    throw err;
  }
  if (content.record.bytes > MAX_REFERENCE_BYTES)
    throw fieldError(['body', ...loc], `file ${fileId} is larger than ${MAX_REFERENCE_BYTES} bytes`);
  const chunks: Buffer[] = [];
  for await (const chunk of content.body.chunks) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/**
 * Loads a JSON `input_references` entry (or `mask`): a stored file of the account (`file_id`;
 * another account's is 404) or an `image_url` (a base64 `data:` URL, or http(s) fetched within
 * the fetch limits, private addresses refused), then checks it is an image.
 */
export async function loadReference(
  reference: InputReference,
  context: {
    accountId: string;
    files: ReferenceFiles;
    fetch: RemoteFetchLimits;
    signal: AbortSignal;
    loc: (string | number)[];
  },
): Promise<ReferenceImage> {
  const { loc } = context;
  if (reference.file_id !== undefined)
    return checkReference(await readFile(context.files, context.accountId, reference.file_id, [...loc, 'file_id']), [
      ...loc,
      'file_id',
    ]);
  const url = typeof reference.image_url === 'string' ? reference.image_url : reference.image_url!.url;
  const param = [...loc, 'image_url'].join('.');
  const loaded = await loadMedia(url, {
    kind: 'image',
    label: `the image in ${param}`,
    param,
    limits: { ...context.fetch, maxBytes: Math.min(context.fetch.maxBytes, MAX_REFERENCE_BYTES) },
    signal: context.signal,
  });
  return checkReference(loaded.bytes, [...loc, 'image_url']);
}
