/** One piece of music to compose. */
export interface MusicRequest {
  prompt: string;
  durationSeconds: number;
  /** Varies the piece for one prompt; null lets the prompt alone decide. */
  seed: number | null;
  signal: AbortSignal;
  /** The request's metadata; the sim reads `metadata.sim` scripts (a scripted `fail`), real engines ignore it. */
  metadata?: Readonly<Record<string, unknown>> | null;
}

/**
 * Music from a prompt (sim; a provider behind the same interface). `compose` yields PCM16 LE in
 * the backend's `shape` (interleaved when stereo) as it is rendered, exactly `durationSeconds`
 * long. Engine failures are TerminalError or RetryableError.
 */
export interface MusicBackend {
  readonly name: string;
  readonly shape: { sampleRate: number; channels: 1 | 2 };
  compose(request: MusicRequest): AsyncIterable<Buffer>;
}
