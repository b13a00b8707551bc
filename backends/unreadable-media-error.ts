/**
 * The caller's media cannot be read (not a recognised image, a broken WAV header, an unknown
 * video container). Terminal: retrying the same bytes cannot help; the request path answers 400.
 */
export class UnreadableMediaError extends Error {
  override name = 'UnreadableMediaError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
