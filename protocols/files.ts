import { z } from 'zod';
import type { FileRecord } from '../runtime/files/file-repo.js';

/** The largest resumable upload (spec §8): 5 GiB. */
export const MAX_UPLOAD_BYTES = 5 * 1024 ** 3;

/** Every part but the last is exactly this size (spec §8: 8 MiB raw parts). */
export const UPLOAD_PART_BYTES = 8 * 1024 ** 2;

/** Purposes as OpenAI names them; ours default to `assistants` (spec §2.13). */
export const FilePurposeSchema = z.enum(['assistants', 'batch', 'fine-tune', 'vision', 'user_data', 'evals']);

/**
 * A file name as stored: trimmed, any directory part dropped (clients send paths), no control
 * characters, at most 255 characters.
 */
export const FilenameSchema = z
  .string()
  .transform((name) => name.split(/[\\/]/).pop()!.trim())
  .pipe(
    z
      .string()
      .min(1, 'must name a file')
      .max(255)
      .refine((name) => !/[\u0000-\u001f\u007f]/.test(name), 'must not contain control characters'),
  );

/** POST /v1/files as JSON (spec §2.13): the bytes as base64. */
export const UploadFileJsonSchema = z.looseObject({
  filename: FilenameSchema,
  file_data: z
    .string()
    .min(1, 'must not be empty')
    .refine((data) => /^[A-Za-z0-9+/_-]*={0,2}$/.test(stripDataUrl(data)), 'must be base64 (or a data: URL with a base64 payload)'),
  purpose: FilePurposeSchema.default('assistants'),
});

/** The base64 payload of `data`, whether bare or a `data:…;base64,` URL. */
export function stripDataUrl(data: string): string {
  const match = /^data:[^,]*;base64,/i.exec(data);
  return (match ? data.slice(match[0].length) : data).replace(/\s+/g, '');
}

/** POST /v1/files/uploads (spec §2.13): reserve an upload of `bytes`. */
export const CreateUploadSchema = z.looseObject({
  filename: FilenameSchema,
  bytes: z.number().int().min(1, 'must be at least 1 byte').max(MAX_UPLOAD_BYTES, `must be at most ${MAX_UPLOAD_BYTES} bytes (5 GiB)`),
  purpose: FilePurposeSchema.default('assistants'),
});

/** POST /v1/files/search (spec §2.13). */
export const FileSearchSchema = z.looseObject({
  query: z.string().trim().min(1, 'must not be empty').max(1000),
  file_id: z.string().min(1).max(100).nullable().default(null),
  max_hits: z.number().int().min(1).max(100).default(20),
});

/** GET /v1/files query: OpenAI's cursor pagination. */
export const ListFilesQuerySchema = z.looseObject({
  limit: z.coerce.number().int().min(1).max(10_000).default(100),
  order: z.enum(['asc', 'desc']).default('desc'),
  after: z.string().min(1).optional(),
  purpose: FilePurposeSchema.optional(),
});

/** A file on the wire: OpenAI's file object plus our checksum, type and extraction status. */
export function fileView(record: FileRecord): Record<string, unknown> {
  return {
    id: record.id,
    object: 'file',
    bytes: record.bytes,
    created_at: Math.floor(record.createdAt / 1000),
    expires_at: null,
    filename: record.filename,
    purpose: record.purpose,
    status: 'processed',
    status_details: record.extraction.status === 'failed' ? `text extraction failed: ${record.extraction.reason}` : null,
    sha256: record.sha256,
    content_type: record.contentType,
    extraction: record.extraction,
  };
}
