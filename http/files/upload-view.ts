import { missingParts, type UploadContext } from '../../actors/upload-machine.js';
import type { ActorRecord } from '../../runtime/actor-host.js';

/** A persisted upload snapshot, as far as views need it. */
export interface UploadSnapshot {
  value: string;
  context: UploadContext;
}

/** The upload's state name and context from its stored record. */
export function uploadOf(record: ActorRecord): UploadSnapshot {
  return record.snapshot as UploadSnapshot;
}

/** An upload on the wire: state, sizes, which parts arrived and which are missing. */
export function uploadView(record: ActorRecord, file: Record<string, unknown> | null): Record<string, unknown> {
  const { value: status, context } = uploadOf(record);
  const received = Object.keys(context.parts)
    .map(Number)
    .sort((a, b) => a - b);
  const receivedBytes = received.reduce((sum, n) => sum + context.parts[n]!.bytes, 0);
  return {
    id: context.id,
    object: 'upload',
    status,
    filename: context.filename,
    purpose: context.purpose,
    bytes: context.bytes,
    part_bytes: context.partBytes,
    part_count: context.partCount,
    received_parts: received,
    missing_parts: missingParts(context),
    received_bytes: receivedBytes,
    created_at: Math.floor(record.createdAt / 1000),
    expires_at: context.deadlines.expires ? Math.floor(context.deadlines.expires / 1000) : null,
    error: context.lastError ? { code: context.lastError.code, message: context.lastError.message } : null,
    file,
  };
}
