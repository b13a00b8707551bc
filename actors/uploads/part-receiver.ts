import { ApiError } from '../../protocols/errors.js';
import { fieldError } from '../../protocols/validation.js';
import type { BlobStore, BlobWriter } from '../../runtime/blobs/blob-store.js';
import type { Clock } from '../../runtime/clock.js';
import type { ActorHost, ActorRecord } from '../../runtime/host/actor-host.js';
import type { KeyedMutex } from '../../runtime/keyed-mutex.js';
import type { BodyStream } from '../files/receive-multipart.js';
import { expectedPartBytes, missingParts, type UploadContext, type UploadEvent } from './upload-machine.js';
import { uploadOf } from './upload-state.js';

/** A part's body as the edge hands it over, with the size the client declared (Content-Length), if any. */
export interface PartBody extends BodyStream {
  contentLength: string | undefined;
}

/** A part received and recorded: its size and checksum, and how many parts are in and still out. */
export interface PartReceipt {
  uploadId: string;
  partNumber: number;
  bytes: number;
  sha256: string;
  receivedParts: number;
  missingParts: number;
}

/** What receiving parts needs from the uploads feature. */
export interface PartReceiverOptions {
  host: ActorHost;
  blobs: BlobStore;
  clock: Clock;
  /** Whether the upload takes parts now. */
  isOpen(record: ActorRecord): boolean;
  /** The 409 for an upload that no longer takes parts. */
  closed(record: ActorRecord): ApiError;
  /** One lock per upload, shared with completion and cancel: a part's commit and COMPLETE never interleave. */
  commits: KeyedMutex;
}

/**
 * Receives upload parts: checks the part number and size, streams the body to a temporary blob
 * (hashing it; parts stream in parallel), then commits it under the upload's lock: checks the
 * upload still takes the part, renames it into place and sends PART, so the recorded checksum is
 * the one on disk and a COMPLETE or CANCEL (under the same lock) never falls in between. A part
 * that lands after the upload closed anyway (the expiry timer) is deleted again.
 */
export class PartReceiver {
  constructor(private readonly options: PartReceiverOptions) {}

  /** Receives part `raw` (the number as sent) of the upload `record` from `body`. */
  async receive(record: ActorRecord, raw: string, body: PartBody): Promise<PartReceipt> {
    const { context } = uploadOf(record);
    if (!/^\d{1,9}$/.test(raw))
      throw fieldError(['path', 'part_number'], 'must be a non-negative integer', 'int_parsing');
    const n = Number(raw);
    if (n >= context.partCount)
      throw fieldError(
        ['path', 'part_number'],
        `must be from 0 to ${context.partCount - 1} for an upload of ${context.bytes} bytes`,
        'less_than',
      );
    if (!this.options.isOpen(record)) throw this.options.closed(record);
    const type = body.contentType ?? '';
    if (/^(multipart\/|application\/json)/i.test(type))
      throw new ApiError('unsupported_media_type', `A part is the raw bytes (application/octet-stream), not ${type}.`);
    const expected = expectedPartBytes(context, n);
    if (body.contentLength !== undefined && Number(body.contentLength) !== expected) {
      throw fieldError(
        ['header', 'content-length'],
        `part ${n} must be exactly ${expected} bytes; Content-Length is ${body.contentLength}`,
      );
    }
    const writer = await this.options.blobs.writer();
    try {
      await this.fill(writer, body, n, expected);
      const sha256 = writer.digest();
      // On disk before the upload's lock: parts of one upload fsync in parallel, only the rename and PART are serialised.
      await writer.sync();
      const after = await this.options.commits.run(record.id, () =>
        this.record(record, writer, { type: 'PART', n, bytes: expected, sha256, at: this.options.clock.now() }),
      );
      return {
        uploadId: record.id,
        partNumber: n,
        bytes: expected,
        sha256,
        receivedParts: Object.keys(after.parts).length,
        missingParts: missingParts(after).length,
      };
    } catch (err) {
      await writer.abort();
      throw err;
    }
  }

  /** Streams exactly `expected` bytes of `body` into `writer`; 422 for a byte more or less. */
  private async fill(writer: BlobWriter, body: BodyStream, n: number, expected: number): Promise<void> {
    await body.pipeBody((chunk) => {
      if (writer.bytes + chunk.length > expected)
        throw fieldError(['body'], `part ${n} must be exactly ${expected} bytes; more were sent`);
      return writer.write(chunk);
    }, Number.MAX_SAFE_INTEGER);
    if (writer.bytes !== expected)
      throw fieldError(['body'], `part ${n} must be exactly ${expected} bytes; ${writer.bytes} arrived`);
  }

  /** Commits the part to its place and records it in the upload (under the upload's lock); the upload's context after. */
  private async record(
    record: ActorRecord,
    writer: BlobWriter,
    event: Extract<UploadEvent, { type: 'PART' }>,
  ): Promise<UploadContext> {
    const { host, blobs } = this.options;
    if (!host.accepts(record.id, event)) throw this.options.closed(host.find(record.id, record.ownerId) ?? record);
    await writer.commit(blobs.partPath(record.id, event.n));
    await host.send(record.id, event);
    const now = host.find(record.id, record.ownerId)!;
    // Only the expiry timer can close the upload here (COMPLETE and CANCEL wait for the lock): leave no bytes behind.
    if (uploadOf(now).context.parts[event.n]?.sha256 !== event.sha256) {
      await blobs.removePart(record.id, event.n);
      throw this.options.closed(now);
    }
    return uploadOf(now).context;
  }
}
