import type { ActorRecord } from '../../runtime/host/actor-host.js';
import type { FileRecord } from '../files/file-repo.js';
import type { UploadContext, UploadStateName } from './upload-machine.js';

/** A persisted upload snapshot: its state name and context. */
export interface UploadSnapshot {
  value: UploadStateName;
  context: UploadContext;
}

/** The upload's state name and context from its stored actor record. */
export function uploadOf(record: ActorRecord): UploadSnapshot {
  return record.snapshot as UploadSnapshot;
}

/** An upload as the service reports it: where it is, what it holds, and the file it became once completed. */
export interface UploadState {
  status: UploadStateName;
  upload: UploadContext;
  /** When it was reserved (epoch ms). */
  createdAt: number;
  /** The stored file, once completed (null if that file has since been deleted). */
  file: FileRecord | null;
}

/** A completed upload and the file it became. */
export interface CompletedUpload {
  upload: UploadState;
  file: FileRecord;
}
