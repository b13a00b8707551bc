import { ApiError } from '../../protocols/errors.js';
import { UPLOAD_PART_BYTES, type CreateUploadRequest } from '../../protocols/files.js';
import type { Clock } from '../../runtime/clock.js';
import type { ActorHost, ActorRecord } from '../../runtime/host/actor-host.js';
import { newId } from '../../runtime/ids.js';
import { KeyedMutex } from '../../runtime/keyed-mutex.js';
import { newFileId, type FileLibrary } from '../files/file-library.js';
import { OPEN_UPLOAD_STATES, UPLOAD_MACHINE, missingParts, type UploadInput } from './upload-machine.js';
import { PartReceiver, type PartBody, type PartReceipt } from './part-receiver.js';
import { uploadOf, type CompletedUpload, type UploadState } from './upload-state.js';

/** What the uploads feature needs: the host its actors live in, the file library they fill, time and the idle limit. */
export interface UploadServiceOptions {
  host: ActorHost;
  library: FileLibrary;
  clock: Clock;
  /** An upload left this long without a part or completion expires. */
  ttlMs: number;
}

/**
 * Resumable uploads (spec §2.13, §4.4) as callers see them: reserve, receive 8 MiB parts,
 * complete into a stored file, or cancel. Each upload is a durable actor in the host; this is
 * the one place that decides what a request may do to it. Plain inputs in (account id, upload
 * id, a body stream), domain state out; another account's upload is a 404 `not_found`. A part's
 * commit, COMPLETE and CANCEL run one at a time per upload, so assembly reads only parts recorded.
 */
export class UploadService {
  private readonly parts: PartReceiver;
  /** Per upload: part commits, COMPLETE and CANCEL, one at a time. */
  private readonly commits = new KeyedMutex();

  constructor(private readonly options: UploadServiceOptions) {
    this.parts = new PartReceiver({
      host: options.host,
      blobs: options.library.blobs,
      clock: options.clock,
      isOpen: (record) => this.isOpen(record),
      closed: (record) => this.closed(record),
      commits: this.commits,
    });
  }

  /** Reserves an upload of `request.bytes`; 507 when the disk could not hold its parts and the assembled file at once. */
  async reserve(accountId: string, request: CreateUploadRequest): Promise<UploadState> {
    const { host, library, clock, ttlMs } = this.options;
    // Parts and the assembled file coexist until assembly ends: refuse what the disk cannot hold.
    if ((await library.blobs.freeBytes()) < request.bytes * 2)
      throw new ApiError('insufficient_storage', `The server has no room for an upload of ${request.bytes} bytes now.`);
    const id = newId('upload');
    const input: UploadInput = {
      id,
      accountId,
      fileId: newFileId(),
      filename: request.filename,
      purpose: request.purpose,
      bytes: request.bytes,
      partBytes: UPLOAD_PART_BYTES,
      at: clock.now(),
      ttlMs,
    };
    await host.spawn(UPLOAD_MACHINE, { id, ownerId: accountId, input });
    return this.stateOf(host.find(id, accountId)!);
  }

  /** The upload's state, with the file it became once completed. */
  status(accountId: string, uploadId: string): UploadState {
    return this.stateOf(this.load(accountId, uploadId));
  }

  /**
   * Receives part `partNumber` (as sent in the path; checked once the upload is found) from
   * `body`: exactly the expected size, written and fsynced, then recorded with its SHA-256.
   */
  receivePart(accountId: string, uploadId: string, partNumber: string, body: PartBody): Promise<PartReceipt> {
    const record = this.load(accountId, uploadId);
    return this.parts.receive(record, partNumber, body);
  }

  /** Assembles a fully received upload into a stored file (or returns the file it already became). */
  async complete(accountId: string, uploadId: string): Promise<CompletedUpload> {
    const { host } = this.options;
    const record = this.load(accountId, uploadId);
    await this.commits.run(record.id, () => this.startAssembly(record));
    await host.waitFor(record.id, (snapshot) => snapshot.value !== 'assembling');
    const after = this.stateOf(host.find(record.id, record.ownerId)!);
    if (after.status === 'completed') {
      if (!after.file)
        throw new ApiError(
          'not_found',
          `Upload ${record.id} became file ${after.upload.fileId}, which has since been deleted.`,
          { param: 'upload_id' },
        );
      return { upload: after, file: after.file };
    }
    const failure = after.upload.lastError;
    if (failure?.code === 'parts_missing')
      throw new ApiError('upload_incomplete', failure.message, { param: 'missing_parts' });
    if (failure?.code === 'insufficient_storage') throw new ApiError('insufficient_storage', failure.message);
    if (failure) throw new Error(`assembly of ${record.id} failed: ${failure.message}`);
    throw this.closed(host.find(record.id, record.ownerId)!);
  }

  /** Cancels an open upload and deletes its parts; 409 once it is completed or assembling. */
  async cancel(accountId: string, uploadId: string): Promise<UploadState> {
    const { host } = this.options;
    let record = this.load(accountId, uploadId);
    const { value } = uploadOf(record);
    if (value === 'completed' || value === 'assembling') throw this.closed(record);
    // A completion may get in between: the cancel is then ignored while it assembles. Wait until the
    // upload has finished (cancelled, expired or completed) or is open again after a failed assembly,
    // and cancel again in that case; never wait on a state that does not end by itself.
    while (host.isLive(record.id)) {
      const { id, ownerId } = record;
      await this.commits.run(id, () => this.cancelIfOpen(id, ownerId));
      await host.waitFor(record.id, (snapshot) => OPEN_UPLOAD_STATES.includes(snapshot.value as string));
      record = host.find(record.id, record.ownerId)!;
    }
    // A completion that got in first wins: nothing was cancelled, so answer as for any completed upload.
    if (uploadOf(record).value === 'completed') throw this.closed(record);
    return this.stateOf(record);
  }

  /** Resolves once the upload is open or finished, not in a step that ends by itself (assembling, discarding). */
  async settled(accountId: string, uploadId: string): Promise<UploadState> {
    const record = this.load(accountId, uploadId);
    await this.options.host.waitFor(record.id, (snapshot) => OPEN_UPLOAD_STATES.includes(snapshot.value as string));
    return this.status(accountId, uploadId);
  }

  /** Deletes the parts of uploads that are no longer running (finished before a crash could clean up); returns how many. */
  async sweepStale(): Promise<number> {
    const { host, library } = this.options;
    let swept = 0;
    for (const id of await library.blobs.uploadIds()) {
      if (host.isLive(id)) continue;
      await library.blobs.removeUpload(id);
      swept++;
    }
    return swept;
  }

  /** Sends COMPLETE (under the upload's lock) unless it is assembling or completed already; 409 when closed or incomplete. */
  private async startAssembly(loaded: ActorRecord): Promise<void> {
    const { host, clock } = this.options;
    const record = host.find(loaded.id, loaded.ownerId) ?? loaded;
    const { value, context } = uploadOf(record);
    if (value === 'completed' || value === 'assembling') return;
    if (!this.isOpen(record)) throw this.closed(record);
    const missing = missingParts(context);
    if (missing.length > 0) {
      const shown =
        missing.length > 20 ? `${missing.slice(0, 20).join(', ')} … (${missing.length} in all)` : missing.join(', ');
      throw new ApiError('upload_incomplete', `Upload ${record.id} is missing parts ${shown}.`, {
        param: 'missing_parts',
      });
    }
    await host.send(record.id, { type: 'COMPLETE', at: clock.now() });
  }

  /** Sends CANCEL if the upload is open, under its lock like part commits: no part is renamed into place after the discard. */
  private async cancelIfOpen(id: string, ownerId: string): Promise<void> {
    const record = this.options.host.find(id, ownerId);
    if (record && this.isOpen(record))
      await this.options.host.send(id, { type: 'CANCEL', at: this.options.clock.now() });
  }

  private load(accountId: string, uploadId: string): ActorRecord {
    const record = this.options.host.find(uploadId, accountId);
    if (!record || record.machine !== UPLOAD_MACHINE)
      throw new ApiError('not_found', `No upload ${uploadId}.`, { param: 'upload_id' });
    return record;
  }

  private stateOf(record: ActorRecord): UploadState {
    const { value, context } = uploadOf(record);
    const file =
      value === 'completed' ? (this.options.library.repo.get(context.accountId, context.fileId) ?? null) : null;
    return { status: value, upload: context, createdAt: record.createdAt, file };
  }

  private isOpen(record: ActorRecord): boolean {
    return OPEN_UPLOAD_STATES.includes(uploadOf(record).value) && this.options.host.isLive(record.id);
  }

  private closed(record: ActorRecord): ApiError {
    const { value, context } = uploadOf(record);
    const hint =
      value === 'completed'
        ? `; it is file ${context.fileId}`
        : value === 'assembling'
          ? '; it is being assembled'
          : '';
    return new ApiError('upload_closed', `Upload ${record.id} is ${value}${hint}.`);
  }
}
