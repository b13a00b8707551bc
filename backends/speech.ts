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
  /** Playback speed, 0.25 to 4 (1 when absent); only a backend with `appliesSpeed` reads it. */
  speed?: number;
  /** Delivery style in words ("calm, slow"); engines that cannot follow it ignore it. */
  instructions?: string | null;
  /** A cloned voice to speak with instead of `voice` (premium engines); what its cloner made. */
  clonedVoice?: ClonedVoice | null;
  /** The request's metadata; the sim reads `metadata.sim` scripts (a scripted `fail`), real engines ignore it. */
  metadata?: Readonly<Record<string, unknown>> | null;
  /** W3C trace context for the upstream (`traceparent`), set while tracing is on; other engines ignore it. */
  traceHeaders?: Readonly<Record<string, string>>;
}

/** A cloned voice as its engine keeps it: an id and the profile the cloner measured. */
export interface ClonedVoice {
  id: string;
  /** Which engine made the profile (only that engine can speak with it). */
  engine: string;
  profile: Readonly<Record<string, number | string>>;
}

/**
 * Text to speech (sim, espeak-ng, an upstream). `synthesize` yields PCM16 LE mono 24 kHz chunks,
 * each an even number of bytes, as they are produced (the first one fast, long before the whole
 * text is spoken), and stops promptly by throwing the abort reason when `signal` aborts. Engine
 * failures are TerminalError or RetryableError.
 */
export interface SpeechBackend {
  readonly name: string;
  /** The engine plays `speed` itself; otherwise callers change the tempo of what it says. */
  readonly appliesSpeed?: boolean;
  synthesize(request: SpeechRequest): AsyncIterable<Buffer>;
}
