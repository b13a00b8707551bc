import type { ExtractedFileText, FileTextSource } from '../../backends/file-text-source.js';
import { ApiError } from '../../protocols/errors.js';
import {
  MultipartFileFieldsSchema,
  stripDataUrl,
  type FileSearchRequest,
  type ListFilesQuery,
  type UploadFileJson,
} from '../../protocols/files.js';
import { fieldError, parseOrThrow } from '../../protocols/validation.js';
import type { BlobWriter } from '../../runtime/blobs/blob-store.js';
import type { FileLibrary, FileSearchHit } from './file-library.js';
import type { FilePage, FileRecord } from './file-repo.js';
import { receiveMultipartFile, type BodyStream } from './receive-multipart.js';

/** Bytes of a known size, pulled chunk by chunk (a download). */
export interface SizedBytes {
  size: number;
  chunks: AsyncIterable<Buffer>;
}

/** A stored file's metadata and its bytes, ready to stream. */
export interface FileContent {
  record: FileRecord;
  body: SizedBytes;
}

/** What a stored file is called and what it is for. */
interface FileNaming {
  filename: string;
  purpose: string;
}

/** Limits of the one-request uploads. */
export interface FileServiceLimits {
  /** The largest file a multipart upload may carry (bigger ones go through resumable uploads). */
  maxFileBytes: number;
}

/**
 * The files feature as callers see it (routes, and later MCP tools and jobs): upload from JSON or
 * a multipart stream, list, read, download, delete and search an account's files. Plain inputs
 * in (account id, parsed request, body stream), domain records out; a file that is not the
 * account's is a 404 `not_found`, never a 403.
 */
export class FileService implements FileTextSource {
  constructor(
    private readonly library: FileLibrary,
    private readonly limits: FileServiceLimits,
  ) {}

  /** Stores a file sent as base64 in JSON (spec §2.13). */
  async uploadBase64(accountId: string, request: UploadFileJson): Promise<FileRecord> {
    const bytes = Buffer.from(stripDataUrl(request.file_data), 'base64');
    if (bytes.length === 0) throw fieldError(['body', 'file_data'], 'the file is empty');
    const writer = await this.library.blobs.writer();
    return this.saveOrAbort(accountId, writer, async () => {
      await writer.write(bytes);
      return request;
    });
  }

  /** Stores the `file` part of a multipart/form-data body, streamed to disk (what `client.files.create` sends). */
  async uploadMultipart(accountId: string, body: BodyStream): Promise<FileRecord> {
    const form = await receiveMultipartFile(body, this.library.blobs, this.limits.maxFileBytes);
    return this.saveOrAbort(accountId, form.writer, () => {
      if (form.writer.bytes === 0) throw fieldError(['body', 'file'], 'the file is empty');
      return parseOrThrow(MultipartFileFieldsSchema, { ...form.fields, filename: form.filename });
    });
  }

  /** Fills or checks `writer` with `prepare`, then saves it as a file; the blob is discarded on any failure. */
  private async saveOrAbort(
    accountId: string,
    writer: BlobWriter,
    prepare: () => FileNaming | Promise<FileNaming>,
  ): Promise<FileRecord> {
    try {
      const { filename, purpose } = await prepare();
      return await this.library.save({ accountId, filename, purpose, writer });
    } catch (err) {
      await writer.abort();
      throw err;
    }
  }

  /** A page of the account's files; a cursor that is not one of its files is a 404. */
  list(accountId: string, query: ListFilesQuery): FilePage {
    const page = this.library.repo.list(accountId, {
      limit: query.limit,
      order: query.order,
      ...(query.after !== undefined && { after: query.after }),
      ...(query.purpose !== undefined && { purpose: query.purpose }),
    });
    if (!page) throw new ApiError('not_found', `No file ${query.after} to list after.`, { param: 'after' });
    return page;
  }

  /** The account's file `fileId`; 404 otherwise. */
  get(accountId: string, fileId: string): FileRecord {
    const record = this.library.repo.get(accountId, fileId);
    if (!record) throw notFound(fileId);
    return record;
  }

  /** The account's file and its bytes, to stream; 404 otherwise. */
  content(accountId: string, fileId: string): FileContent {
    const record = this.get(accountId, fileId);
    return { record, body: { size: record.bytes, chunks: this.library.blobs.readContent(record.id) } };
  }

  /** Deletes the account's file (metadata and index, then bytes); 404 otherwise. */
  async delete(accountId: string, fileId: string): Promise<void> {
    if (!(await this.library.remove(accountId, fileId))) throw notFound(fileId);
  }

  /** Ranked passages matching the query in the account's files, or in one of them (404 if not the account's). */
  async search(accountId: string, request: FileSearchRequest): Promise<FileSearchHit[]> {
    if (request.file_id !== null) this.get(accountId, request.file_id);
    return this.library.search(accountId, request.query, { fileId: request.file_id, maxHits: request.max_hits });
  }

  /** The extracted text of the account's file (chat `file_id` parts), or null. */
  extractedText(accountId: string, fileId: string): Promise<ExtractedFileText | null> {
    return this.library.extractedText(accountId, fileId);
  }

  /** Deletes stored bytes no metadata points to, written before `before` (a crash between write and commit); returns how many. */
  sweepOrphans(before: number): Promise<number> {
    return this.library.sweepOrphans(before);
  }
}

function notFound(fileId: string): ApiError {
  return new ApiError('not_found', `No file ${fileId}.`, { param: 'file_id' });
}
