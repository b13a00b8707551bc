import { backendApiError, RetryableError, TerminalError } from '../../../backends/errors.js';
import { UnreadableMediaError } from '../../../backends/unreadable-media-error.js';
import { ApiError } from '../../../protocols/errors.js';

/** Which part an error is about: `the image in messages[0].content[1]`, and the request field. */
export interface PartRef {
  label: string;
  param: string;
}

/** A 400 about one content part, naming its field. */
export function partError(ref: PartRef, message: string, cause?: unknown): ApiError {
  return new ApiError('invalid_request', message, { param: ref.param, cause });
}

/**
 * Runs a media backend call for a part: unreadable media becomes a 400 naming the field, a failed
 * backend the explicit upstream error (502/503/504), never a weaker answer.
 */
export async function callMediaBackend<T>(ref: PartRef, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof UnreadableMediaError) throw partError(ref, `Cannot read ${ref.label}: ${err.message}.`, err);
    if (err instanceof TerminalError || err instanceof RetryableError) {
      throw backendApiError(err, `Processing ${ref.label} failed: ${err.message}. Nothing was charged.`, {
        param: ref.param,
      });
    }
    throw err;
  }
}
