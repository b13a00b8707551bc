import { ApiError } from '../../protocols/errors.js';
import {
  MultipartError,
  MultipartParser,
  multipartBoundary,
  type MultipartPartHead,
} from '../../protocols/multipart.js';
import { fieldError } from '../../protocols/validation.js';
import type { BlobStore, BlobWriter } from '../../runtime/blobs/blob-store.js';

/** Form fields other than the file are small; this caps all of them together. */
const MAX_FIELD_BYTES = 64 * 1024;

/** A request body as the edge hands it over: its Content-Type and a backpressured stream of its bytes. */
export interface BodyStream {
  contentType: string | undefined;
  /** Streams the body to `sink` chunk by chunk (reads pause while a returned promise is pending); rejects past `limit` bytes. */
  pipeBody(sink: (chunk: Buffer) => void | Promise<void>, limit: number): Promise<number>;
}

/** A multipart upload as received: the file part on disk (not yet committed) and the other fields (a repeated `name[]` as an array). */
export interface ReceivedForm {
  writer: BlobWriter;
  filename: string;
  fields: Record<string, string | string[]>;
}

/** How one route reads its form: its caps and what its errors say. */
export interface FileFormRules {
  maxBytes: number;
  maxParts: number;
  /** The 413 for a file past `maxBytes`. */
  tooLarge: () => ApiError;
  /** The 422 message when no file part came. */
  missing: string;
  /** The name given to a `file` part sent without a filename; null: such a part is not the file. */
  unnamedFile: string | null;
}

/** Adds a field, turning a repeated name (`timestamp_granularities[]`) into an array; others: the last one wins. */
function addField(fields: Record<string, string | string[]>, name: string, value: string): void {
  const key = name.endsWith('[]') ? name.slice(0, -2) : name;
  const seen = fields[key];
  if (name.endsWith('[]')) fields[key] = [...(Array.isArray(seen) ? seen : seen === undefined ? [] : [seen]), value];
  else fields[key] = value;
}

/**
 * Reads a `multipart/form-data` body with a `file` part (what the SDK's `files.create` and
 * `audio.transcriptions.create` send), streaming the file straight to a blob so memory stays flat
 * whatever its size; the other fields are collected. On any failure the partial blob is deleted.
 */
export async function receiveFileForm(body: BodyStream, blobs: BlobStore, rules: FileFormRules): Promise<ReceivedForm> {
  const boundary = multipartBoundary(body.contentType);
  if (!boundary)
    throw new ApiError('invalid_multipart', 'The multipart/form-data Content-Type has no usable boundary parameter.');
  let writer: BlobWriter | null = null;
  let filename = '';
  const fields = Object.create(null) as Record<string, string | string[]>;
  let field: { name: string; chunks: Buffer[] } | null = null;
  let fieldBytes = 0;
  let inFile = false;

  const parser = new MultipartParser(
    boundary,
    {
      async partStart(head: MultipartPartHead) {
        inFile = head.name === 'file' && (head.filename !== null || rules.unnamedFile !== null);
        if (inFile) {
          if (writer) throw fieldError(['body', 'file'], 'only one file may be sent per request');
          writer = await blobs.writer();
          filename = head.filename ?? rules.unnamedFile!;
        } else {
          field = head.filename === null ? { name: head.name, chunks: [] } : null; // other file parts are skipped
        }
      },
      partData(chunk: Buffer) {
        if (inFile) {
          if (writer!.bytes + chunk.length > rules.maxBytes) throw rules.tooLarge();
          return writer!.write(chunk);
        }
        fieldBytes += chunk.length;
        if (fieldBytes > MAX_FIELD_BYTES)
          throw new ApiError('payload_too_large', `Form fields other than the file exceed ${MAX_FIELD_BYTES} bytes.`);
        field?.chunks.push(chunk);
        return undefined;
      },
      partEnd() {
        if (field) addField(fields, field.name, Buffer.concat(field.chunks).toString('utf8'));
        field = null;
        inFile = false;
      },
    },
    { maxParts: rules.maxParts },
  );

  // A disconnect rejects the body at once, possibly while a write is still opening the blob:
  // wait for that write to settle, so the writer it creates is the one aborted, not left behind.
  let writing: Promise<void> = Promise.resolve();
  try {
    await body.pipeBody((chunk) => (writing = parser.write(chunk)), rules.maxBytes + MAX_FIELD_BYTES + 64 * 1024);
    parser.end();
  } catch (err) {
    await writing.catch(() => undefined);
    await (writer as BlobWriter | null)?.abort();
    if (err instanceof MultipartError)
      throw new ApiError('invalid_multipart', `The multipart body is malformed: ${err.message}`, { cause: err });
    throw err;
  }
  if (!writer) throw fieldError(['body', 'file'], rules.missing, 'missing');
  return { writer, filename, fields };
}

/** `POST /v1/files` as `client.files.create` sends it: a named `file` part up to `maxBytes`. */
export function receiveMultipartFile(body: BodyStream, blobs: BlobStore, maxBytes: number): Promise<ReceivedForm> {
  return receiveFileForm(body, blobs, {
    maxBytes,
    maxParts: 20,
    tooLarge: () =>
      new ApiError(
        'payload_too_large',
        `The file exceeds ${maxBytes} bytes; use a resumable upload (POST /v1/files/uploads).`,
      ),
    missing: 'Field required: send the file as a part named "file" with a filename',
    unnamedFile: null,
  });
}
