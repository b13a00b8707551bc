import { z } from 'zod';

/** The largest resumable upload (spec §8): 5 GiB. */
export const MAX_UPLOAD_BYTES = 5 * 1024 ** 3;

/** Every part but the last is exactly this size (spec §8: 8 MiB raw parts). */
export const UPLOAD_PART_BYTES = 8 * 1024 ** 2;

/** Purposes as OpenAI names them; ours default to `assistants` (spec §2.13). */
export const FilePurposeSchema = z.enum(['assistants', 'batch', 'fine-tune', 'vision', 'user_data', 'evals']);

/**
 * A file name as stored: trimmed, any directory part dropped (clients send paths), not `.` or
 * `..`, no control characters, at most 255 characters.
 */
export const FilenameSchema = z
  .string()
  .transform((name) => name.split(/[\\/]/).pop()!.trim())
  .pipe(
    z
      .string()
      .min(1, 'must name a file')
      .max(255)
      .refine((name) => name !== '.' && name !== '..', 'must name a file, not . or ..')
      .refine((name) => !/[\u0000-\u001f\u007f]/.test(name), 'must not contain control characters'),
  );

/** POST /v1/files as JSON (spec §2.13): the bytes as base64. */
export const UploadFileJsonSchema = z.looseObject({
  filename: FilenameSchema,
  file_data: z
    .string()
    .min(1, 'must not be empty')
    .refine(
      (data) => /^[A-Za-z0-9+/_-]*={0,2}$/.test(stripDataUrl(data)),
      'must be base64 (or a data: URL with a base64 payload)',
    ),
  purpose: FilePurposeSchema.default('assistants'),
});

/** A parsed POST /v1/files JSON body. */
export type UploadFileJson = z.output<typeof UploadFileJsonSchema>;

/** The base64 payload of `data`, whether bare or a `data:…;base64,` URL. */
export function stripDataUrl(data: string): string {
  const match = /^data:[^,]*;base64,/i.exec(data);
  return (match ? data.slice(match[0].length) : data).replace(/\s+/g, '');
}

/** The fields of a multipart POST /v1/files besides the file part (its filename comes from the part). */
export const MultipartFileFieldsSchema = z.looseObject({
  filename: FilenameSchema,
  purpose: FilePurposeSchema.default('assistants'),
});

/** POST /v1/files/uploads (spec §2.13): reserve an upload of `bytes`. */
export const CreateUploadSchema = z.looseObject({
  filename: FilenameSchema,
  bytes: z
    .number()
    .int()
    .min(1, 'must be at least 1 byte')
    .max(MAX_UPLOAD_BYTES, `must be at most ${MAX_UPLOAD_BYTES} bytes (5 GiB)`),
  purpose: FilePurposeSchema.default('assistants'),
});

/** A parsed reservation request. */
export type CreateUploadRequest = z.output<typeof CreateUploadSchema>;

/** POST /v1/files/search (spec §2.13). */
export const FileSearchSchema = z.looseObject({
  query: z.string().trim().min(1, 'must not be empty').max(1000),
  file_id: z.string().min(1).max(100).nullable().default(null),
  max_hits: z.number().int().min(1).max(100).default(20),
});

/** A parsed search request. */
export type FileSearchRequest = z.output<typeof FileSearchSchema>;

/** GET /v1/files query: OpenAI's cursor pagination. */
export const ListFilesQuerySchema = z.looseObject({
  limit: z.coerce.number().int().min(1).max(10_000).default(100),
  order: z.enum(['asc', 'desc']).default('desc'),
  after: z.string().min(1).max(200).optional(),
  purpose: FilePurposeSchema.optional(),
});

/** A parsed file list query. */
export type ListFilesQuery = z.output<typeof ListFilesQuerySchema>;

/** What text extraction made of a file, on the wire. */
export const ExtractionSchema = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('extracted'),
    kind: z.string(),
    chars: z.number().int(),
    truncated: z.boolean(),
    pages: z.number().int().optional(),
  }),
  z.object({ status: z.literal('unsupported'), reason: z.string() }),
  z.object({ status: z.literal('failed'), reason: z.string() }),
]);

/** A file on the wire: OpenAI's file object plus our checksum, type and extraction status. */
export const FileObjectSchema = z.strictObject({
  id: z.string(),
  object: z.literal('file'),
  bytes: z.number().int(),
  created_at: z.number().int(),
  expires_at: z.null(),
  filename: z.string(),
  purpose: z.string(),
  status: z.literal('processed'),
  status_details: z.string().nullable(),
  sha256: z.string(),
  content_type: z.string(),
  extraction: ExtractionSchema,
});

/** A file on the wire. */
export type FileObject = z.output<typeof FileObjectSchema>;

/** GET /v1/files: one page of files, with OpenAI's cursor fields. */
export const FileListObjectSchema = z.strictObject({
  object: z.literal('list'),
  data: z.array(FileObjectSchema),
  first_id: z.string().nullable(),
  last_id: z.string().nullable(),
  has_more: z.boolean(),
});

/** A page of files on the wire. */
export type FileListObject = z.output<typeof FileListObjectSchema>;

/** DELETE /v1/files/{file_id}. */
export const FileDeletedObjectSchema = z.strictObject({
  id: z.string(),
  object: z.literal('file'),
  deleted: z.literal(true),
});

/** A deleted file on the wire. */
export type FileDeletedObject = z.output<typeof FileDeletedObjectSchema>;

/** Offsets of a passage (or of a matched word within a snippet), UTF-16 code units. */
const SpanSchema = z.strictObject({ start: z.number().int(), end: z.number().int() });

/** One search hit: a passage of a file around a match, with the matched words marked. */
export const FileSearchHitObjectSchema = z.strictObject({
  object: z.literal('file.search_hit'),
  file_id: z.string(),
  filename: z.string(),
  /** Relevance, rounded to four decimals. */
  score: z.number(),
  snippet: z.string(),
  matches: z.array(SpanSchema),
  start: z.number().int(),
  end: z.number().int(),
});

/** POST /v1/files/search: the hits, best first. */
export const FileSearchResultsObjectSchema = z.strictObject({
  object: z.literal('list'),
  query: z.string(),
  data: z.array(FileSearchHitObjectSchema),
});

/** Search results on the wire. */
export type FileSearchResultsObject = z.output<typeof FileSearchResultsObjectSchema>;

/** Where a resumable upload is: open (`reserved`, `receiving`), busy, or finished. */
export const UploadStatusSchema = z.enum([
  'reserved',
  'receiving',
  'assembling',
  'cancelling',
  'expiring',
  'completed',
  'cancelled',
  'expired',
]);

/** A resumable upload on the wire (POST /v1/files/uploads, GET and DELETE /v1/files/uploads/{id}). */
export const UploadObjectSchema = z.strictObject({
  id: z.string(),
  object: z.literal('upload'),
  status: UploadStatusSchema,
  filename: z.string(),
  purpose: z.string(),
  bytes: z.number().int(),
  part_bytes: z.number().int(),
  part_count: z.number().int(),
  /** Part numbers received, ascending. */
  received_parts: z.array(z.number().int()),
  /** Part numbers still to send, ascending. */
  missing_parts: z.array(z.number().int()),
  received_bytes: z.number().int(),
  created_at: z.number().int(),
  /** When an idle upload expires (seconds); null once it is assembling or finished. */
  expires_at: z.number().int().nullable(),
  /** Why the last assembly failed, until a part is received again. */
  error: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
  /** The file it became, once completed (null if that file was deleted since). */
  file: FileObjectSchema.nullable(),
});

/** An upload on the wire. */
export type UploadObject = z.output<typeof UploadObjectSchema>;

/** PUT /v1/files/uploads/{id}/parts/{n}: the part as stored, and how many parts are in and still out. */
export const UploadPartObjectSchema = z.strictObject({
  object: z.literal('upload.part'),
  upload_id: z.string(),
  part_number: z.number().int(),
  bytes: z.number().int(),
  sha256: z.string(),
  received_parts: z.number().int(),
  missing_parts: z.number().int(),
});

/** A received part on the wire. */
export type UploadPartObject = z.output<typeof UploadPartObjectSchema>;

/** POST /v1/files/uploads/{id}/complete: the stored file, with the upload it came from. */
export const CompletedUploadObjectSchema = FileObjectSchema.extend({ upload_id: z.string() });

/** A completed upload on the wire. */
export type CompletedUploadObject = z.output<typeof CompletedUploadObjectSchema>;
