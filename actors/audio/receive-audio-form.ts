import { ApiError } from '../../protocols/errors.js';
import { MultipartError, MultipartParser, multipartBoundary, type MultipartPartHead } from '../../protocols/multipart.js';
import { fieldError } from '../../protocols/validation.js';
import type { BlobStore, BlobWriter } from '../../runtime/blobs/blob-store.js';
import type { BodyStream } from '../files/receive-multipart.js';

/** Form fields other than the file are small; this caps all of them together. */
const MAX_FIELD_BYTES = 64 * 1024;

/** An audio form as received: the file part in a temporary blob, and the other fields (repeated names as arrays). */
export interface ReceivedAudioForm {
  writer: BlobWriter;
  filename: string;
  fields: Record<string, string | string[]>;
}

/** Adds a field, turning a repeated name (`timestamp_granularities[]`) into an array. */
function addField(fields: Record<string, string | string[]>, name: string, value: string): void {
  const key = name.endsWith('[]') ? name.slice(0, -2) : name;
  const seen = fields[key];
  if (name.endsWith('[]')) fields[key] = [...(Array.isArray(seen) ? seen : seen === undefined ? [] : [seen]), value];
  else fields[key] = value;
}

/**
 * Reads a `multipart/form-data` audio upload as the SDK's `audio.transcriptions.create` sends it:
 * the `file` part streamed to a temporary blob (413 past `maxBytes`), the other fields collected.
 * On any failure the partial blob is deleted.
 */
export async function receiveAudioForm(body: BodyStream, blobs: BlobStore, maxBytes: number): Promise<ReceivedAudioForm> {
  const boundary = multipartBoundary(body.contentType);
  if (!boundary) throw new ApiError('invalid_multipart', 'The multipart/form-data Content-Type has no usable boundary parameter.');
  let writer: BlobWriter | null = null;
  let filename = '';
  const fields: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  let field: { name: string; chunks: Buffer[] } | null = null;
  let fieldBytes = 0;
  let inFile = false;
  const parser = new MultipartParser(
    boundary,
    {
      async partStart(head: MultipartPartHead) {
        inFile = head.name === 'file';
        if (inFile) {
          if (writer) throw fieldError(['body', 'file'], 'only one file may be sent per request');
          writer = await blobs.writer();
          filename = head.filename ?? 'audio';
        } else {
          field = head.filename === null ? { name: head.name, chunks: [] } : null; // other file parts are skipped
        }
      },
      partData(chunk: Buffer) {
        if (inFile) {
          if (writer!.bytes + chunk.length > maxBytes) throw new ApiError('payload_too_large', `The audio file exceeds ${maxBytes} bytes.`, { param: 'file' });
          return writer!.write(chunk);
        }
        fieldBytes += chunk.length;
        if (fieldBytes > MAX_FIELD_BYTES) throw new ApiError('payload_too_large', `Form fields other than the file exceed ${MAX_FIELD_BYTES} bytes.`);
        field?.chunks.push(chunk);
        return undefined;
      },
      partEnd() {
        if (field) addField(fields, field.name, Buffer.concat(field.chunks).toString('utf8'));
        field = null;
        inFile = false;
      },
    },
    { maxParts: 40 },
  );
  // A disconnect rejects the body at once, possibly while a write is still opening the blob:
  // wait for that write to settle, so the writer it creates is the one aborted.
  let writing: Promise<void> = Promise.resolve();
  try {
    await body.pipeBody((chunk) => (writing = parser.write(chunk)), maxBytes + MAX_FIELD_BYTES + 64 * 1024);
    parser.end();
  } catch (err) {
    await writing.catch(() => undefined);
    await (writer as BlobWriter | null)?.abort();
    if (err instanceof MultipartError) throw new ApiError('invalid_multipart', `The multipart body is malformed: ${err.message}`, { cause: err });
    throw err;
  }
  if (!writer) throw fieldError(['body', 'file'], 'Field required: send the audio as a part named "file"', 'missing');
  return { writer, filename, fields };
}
