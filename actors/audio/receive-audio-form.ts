import { ApiError } from '../../protocols/errors.js';
import type { BlobStore } from '../../runtime/blobs/blob-store.js';
import { receiveFileForm, type BodyStream, type ReceivedForm } from '../files/receive-multipart.js';

/**
 * Reads a `multipart/form-data` audio upload as the SDK's `audio.transcriptions.create` sends it:
 * the `file` part (named or not) streamed to a temporary blob (413 past `maxBytes`), the other
 * fields collected, a repeated `timestamp_granularities[]` as an array.
 */
export function receiveAudioForm(body: BodyStream, blobs: BlobStore, maxBytes: number): Promise<ReceivedForm> {
  return receiveFileForm(body, blobs, {
    maxBytes,
    maxParts: 40,
    tooLarge: () => new ApiError('payload_too_large', `The audio file exceeds ${maxBytes} bytes.`, { param: 'file' }),
    missing: 'Field required: send the audio as a part named "file"',
    unnamedFile: 'audio',
  });
}
