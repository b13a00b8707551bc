import { createHash } from 'node:crypto';
import { fromPromise } from 'xstate';
import {
  expectedPartBytes,
  UPLOAD_MACHINE,
  uploadMachine,
  type AssembleInput,
  type AssemblyFailure,
} from './upload-machine.js';
import { ApiError } from '../../protocols/errors.js';
import type { BlobWriter } from '../../runtime/blobs/blob-store.js';
import type { HostedMachine } from '../../runtime/host/actor-host.js';
import type { FileLibrary } from '../files/file-library.js';

/** An assembly failure the machine records (it forgets the named parts so they are sent again). */
class AssemblyError extends Error {
  constructor(readonly failure: AssemblyFailure) {
    super(failure.message);
    this.name = 'AssemblyError';
  }
}

/**
 * The disk side of uploads: assembling parts into a stored file and discarding them. Both are
 * idempotent, so a step cut short by a crash simply runs again after rehydration.
 */
export class UploadRuntime {
  constructor(private readonly files: FileLibrary) {}

  private async assemble(input: AssembleInput): Promise<{ fileId: string }> {
    // A crash after the file was committed but before the upload recorded it: it is done.
    if (this.files.repo.get(input.accountId, input.fileId)) {
      await this.files.blobs.removeUpload(input.uploadId);
      return { fileId: input.fileId };
    }
    const damaged: number[] = [];
    for (let n = 0; n < input.partCount; n++) {
      if ((await this.files.blobs.partSize(input.uploadId, n)) !== expectedPartBytes(input, n)) damaged.push(n);
    }
    if (damaged.length > 0) {
      throw new AssemblyError({
        code: 'parts_missing',
        message: `Parts ${damaged.join(', ')} are missing or damaged on the server; send them again.`,
        parts: damaged,
      });
    }
    const writer = await this.files.blobs.writer();
    try {
      const changed = await this.copyParts(input, writer);
      if (changed.length > 0) {
        // Bytes that are not the acknowledged part must not stay where a part is expected.
        await Promise.all(changed.map((n) => this.files.blobs.removePart(input.uploadId, n)));
        throw new AssemblyError({
          code: 'parts_missing',
          message: `Parts ${changed.join(', ')} on the server differ from the parts acknowledged; send them again.`,
          parts: changed,
        });
      }
      await this.files.save({
        accountId: input.accountId,
        filename: input.filename,
        purpose: input.purpose,
        writer,
        fileId: input.fileId,
      });
    } catch (err) {
      await writer.abort();
      if (err instanceof ApiError && err.code === 'insufficient_storage')
        throw new AssemblyError({ code: 'insufficient_storage', message: err.message, parts: [] });
      throw err;
    }
    await this.files.blobs.removeUpload(input.uploadId);
    return { fileId: input.fileId };
  }

  /**
   * Appends the parts to `writer` in order, hashing each; returns the parts whose SHA-256 is not
   * the one recorded when they were acknowledged. After the first such part the rest is only
   * hashed (the file will not be saved), so every changed part is named at once.
   */
  private async copyParts(input: AssembleInput, writer: BlobWriter): Promise<number[]> {
    const changed: number[] = [];
    for (let n = 0; n < input.partCount; n++) {
      const hash = createHash('sha256');
      for await (const chunk of this.files.blobs.readPart(input.uploadId, n)) {
        hash.update(chunk);
        if (changed.length === 0) await writer.write(chunk);
      }
      // A snapshot persisted in `assembling` before digests were passed has none: nothing to compare.
      const recorded = input.partSha256?.[n];
      if (recorded !== undefined && hash.digest('hex') !== recorded) changed.push(n);
    }
    return changed;
  }

  /** The upload machine with this runtime's disk steps, ready to register with the host. */
  hosted(): HostedMachine {
    return {
      name: UPLOAD_MACHINE,
      logic: uploadMachine.provide({
        actors: {
          assemble: fromPromise<{ fileId: string }, AssembleInput>(({ input }) => this.assemble(input)),
          discard: fromPromise<void, { uploadId: string }>(({ input }) =>
            this.files.blobs.removeUpload(input.uploadId),
          ),
        },
      }),
    };
  }
}
