import { fromPromise } from 'xstate';
import { expectedPartBytes, UPLOAD_MACHINE, uploadMachine, type AssembleInput, type AssemblyFailure } from './upload-machine.js';
import { ApiError } from '../../protocols/errors.js';
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
      throw new AssemblyError({ code: 'parts_missing', message: `Parts ${damaged.join(', ')} are missing or damaged on the server; send them again.`, parts: damaged });
    }
    const writer = await this.files.blobs.writer();
    try {
      for (let n = 0; n < input.partCount; n++) {
        for await (const chunk of this.files.blobs.readPart(input.uploadId, n)) await writer.write(chunk);
      }
      await this.files.save({ accountId: input.accountId, filename: input.filename, purpose: input.purpose, writer, fileId: input.fileId });
    } catch (err) {
      await writer.abort();
      if (err instanceof ApiError && err.code === 'insufficient_storage') throw new AssemblyError({ code: 'insufficient_storage', message: err.message, parts: [] });
      throw err;
    }
    await this.files.blobs.removeUpload(input.uploadId);
    return { fileId: input.fileId };
  }

  /** The upload machine with this runtime's disk steps, ready to register with the host. */
  hosted(): HostedMachine {
    return {
      name: UPLOAD_MACHINE,
      logic: uploadMachine.provide({
        actors: {
          assemble: fromPromise<{ fileId: string }, AssembleInput>(({ input }) => this.assemble(input)),
          discard: fromPromise<void, { uploadId: string }>(({ input }) => this.files.blobs.removeUpload(input.uploadId)),
        },
      }),
    };
  }
}
