/** The one PCM shape speech backends produce (and the realtime API carries): 16-bit LE mono at 24 kHz. */
export const PCM16_SAMPLE_RATE = 24_000;

/** One piece of text to speak. */
export interface SpeechRequest {
  text: string;
  /** An OpenAI voice name (alloy, ash, ballad, coral, echo, sage, shimmer, verse, marin, cedar). */
  voice: string;
  /** ISO-639-1 hint for the text's language; null or absent means the backend's default. */
  language?: string | null;
  signal: AbortSignal;
}

/**
 * Text to speech (sim, espeak-ng, an upstream). `synthesize` yields PCM16 LE mono 24 kHz chunks,
 * each an even number of bytes, as they are produced (the first one fast, long before the whole
 * text is spoken), and stops promptly by throwing the abort reason when `signal` aborts. Engine
 * failures are TerminalError or RetryableError.
 */
export interface SpeechBackend {
  readonly name: string;
  synthesize(request: SpeechRequest): AsyncIterable<Buffer>;
}
