import type { AudioCodec, DecodedAudio, DecodeOptions } from '../../backends/audio-codec.js';
import { backendApiError, RetryableError, TerminalError } from '../../backends/errors.js';
import { UnreadableMediaError } from '../../backends/unreadable-media-error.js';
import { ApiError } from '../../protocols/errors.js';
import { fieldError } from '../../protocols/validation.js';

/**
 * What the caller sees of a failed audio engine: the API's explicit upstream error (502, 503, 504,
 * with the provider's retry delay), never a weaker answer; nothing is charged for it. The abort
 * reason when the client left; ApiErrors pass through; anything else is a bug (500).
 */
export function engineFailure(err: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return signal.reason ?? err;
  if (err instanceof ApiError) return err;
  if (err instanceof RetryableError || err instanceof TerminalError) {
    return backendApiError(err, `The audio engine failed: ${err.message}. Nothing was charged.`);
  }
  return err;
}

/**
 * Decodes audio a client sent (a temporary file at `path`); a 422 naming the field (`loc`) when it
 * is no audio the codec can read, the codec's own failure as an upstream error.
 */
export async function decodeUpload(
  codec: AudioCodec,
  path: string,
  options: DecodeOptions,
  loc: (string | number)[],
): Promise<DecodedAudio> {
  try {
    return await codec.decode({ path }, options);
  } catch (err) {
    if (err instanceof UnreadableMediaError) throw fieldError(['body', ...loc], err.message, 'value_error');
    throw engineFailure(err, options.signal);
  }
}
