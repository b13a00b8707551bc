/** The audio encodings a transcription backend accepts; `pcm16` is raw 16-bit little-endian mono at 24 kHz. */
export const AUDIO_FORMATS = ['wav', 'mp3', 'pcm16'] as const;

/** One of AUDIO_FORMATS. */
export type AudioFormat = (typeof AUDIO_FORMATS)[number];

/** Raw PCM's fixed shape, as the realtime API sends it: 24 kHz, mono, 16-bit. */
export const PCM16_BYTES_PER_SECOND = 24_000 * 2;

/** One piece of speech to transcribe. */
export interface TranscriptionRequest {
  /** Read by the time the transcript resolves: the caller may then reuse the memory (a backend needing it later copies it). */
  audio: Buffer;
  format: AudioFormat;
  /** ISO-639-1 hint; null or absent lets the backend detect it. */
  language?: string | null;
  signal: AbortSignal;
  /** Text that guides the engine (spelling of names, the previous segment); engines may ignore it. */
  prompt?: string | null;
  /** Ask for word times and speaker labels where the engine has them. */
  detail?: { words?: boolean; speakers?: boolean };
  /** The request's metadata; the sim reads `metadata.sim` scripts (a scripted `fail`), real engines ignore it. */
  metadata?: Readonly<Record<string, unknown>> | null;
  /** W3C trace context for the upstream (`traceparent`), set while tracing is on; other engines ignore it. */
  traceHeaders?: Readonly<Record<string, string>>;
}

/** A stretch of the transcript with its times in seconds, and who spoke it when the engine tells speakers apart. */
export interface TranscriptSegment {
  start: number;
  end: number;
  text: string;
  speaker?: string;
}

/** A word with its times in seconds. */
export interface TranscriptWord {
  word: string;
  start: number;
  end: number;
}

/** A transcript and the length of the audio it came from; engines that know more add segments, words and the language. */
export interface Transcript {
  text: string;
  durationSeconds: number;
  /** ISO-639-1 code of the language heard. */
  language?: string;
  segments?: TranscriptSegment[];
  words?: TranscriptWord[];
}

/**
 * Speech to text (sim, pocketsphinx, an upstream): serves chat `input_audio` parts, and later
 * /v1/audio/transcriptions and realtime calls. Throws UnreadableMediaError for undecodable audio,
 * TerminalError or RetryableError when the engine fails.
 */
export interface TranscriptionBackend {
  readonly name: string;
  transcribe(request: TranscriptionRequest): Promise<Transcript>;
}
