import type { ClonedVoice } from './speech.js';

/** Samples of one voice to clone: decoded PCM16 LE mono at 24 kHz, one buffer per sample. */
export interface VoiceCloneRequest {
  name: string;
  samples: readonly Buffer[];
  signal: AbortSignal;
  /** The request's metadata; the sim reads `metadata.sim` scripts (a scripted `fail`), real engines ignore it. */
  metadata?: Readonly<Record<string, unknown>> | null;
}

/**
 * Voice cloning (the premium engine): measures the samples and returns the profile its speech
 * engine speaks with (`SpeechRequest.clonedVoice`). Engine failures are TerminalError or
 * RetryableError; samples with no voice in them are an UnreadableMediaError.
 */
export interface VoiceCloneBackend {
  readonly name: string;
  clone(request: VoiceCloneRequest): Promise<Omit<ClonedVoice, 'id'>>;
}
