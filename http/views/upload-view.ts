import type { PartReceipt } from '../../actors/uploads/part-receiver.js';
import { missingParts } from '../../actors/uploads/upload-machine.js';
import type { CompletedUpload, UploadState } from '../../actors/uploads/upload-state.js';
import type { CompletedUploadObject, UploadObject, UploadPartObject } from '../../protocols/files.js';
import { fileView } from './file-view.js';

/** An upload on the wire: state, sizes, which parts arrived and which are missing, and the file it became. */
export function uploadView(state: UploadState): UploadObject {
  const { upload } = state;
  const received = Object.keys(upload.parts)
    .map(Number)
    .sort((a, b) => a - b);
  const receivedBytes = received.reduce((sum, n) => sum + upload.parts[n]!.bytes, 0);
  return {
    id: upload.id,
    object: 'upload',
    status: state.status,
    filename: upload.filename,
    purpose: upload.purpose,
    bytes: upload.bytes,
    part_bytes: upload.partBytes,
    part_count: upload.partCount,
    received_parts: received,
    missing_parts: missingParts(upload),
    received_bytes: receivedBytes,
    created_at: Math.floor(state.createdAt / 1000),
    expires_at: upload.deadlines.expires ? Math.floor(upload.deadlines.expires / 1000) : null,
    error: upload.lastError ? { code: upload.lastError.code, message: upload.lastError.message } : null,
    file: state.file ? fileView(state.file) : null,
  };
}

/** A received part on the wire. */
export function uploadPartView(receipt: PartReceipt): UploadPartObject {
  return {
    object: 'upload.part',
    upload_id: receipt.uploadId,
    part_number: receipt.partNumber,
    bytes: receipt.bytes,
    sha256: receipt.sha256,
    received_parts: receipt.receivedParts,
    missing_parts: receipt.missingParts,
  };
}

/** A completed upload on the wire: the stored file and the upload it came from. */
export function completedUploadView({ upload, file }: CompletedUpload): CompletedUploadObject {
  return { ...fileView(file), upload_id: upload.upload.id };
}
