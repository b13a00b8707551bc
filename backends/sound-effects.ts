/** One sound effect to generate. */
export interface SoundEffectRequest {
  prompt: string;
  durationSeconds: number;
  /** The end joins the start seamlessly, for playing on repeat. */
  loop: boolean;
  /** How closely the sound follows the prompt, 0 to 1 (lower leaves the engine more freedom). */
  promptInfluence: number;
  signal: AbortSignal;
  /** The request's metadata; the sim reads `metadata.sim` scripts (a scripted `fail`), real engines ignore it. */
  metadata?: Readonly<Record<string, unknown>> | null;
}

/**
 * Sound effects from a prompt (sim; a provider behind the same interface): the whole effect as
 * PCM16 LE in the backend's `shape`, exactly `durationSeconds` long. Engine failures are
 * TerminalError or RetryableError.
 */
export interface SoundEffectBackend {
  readonly name: string;
  readonly shape: { sampleRate: number; channels: 1 | 2 };
  generate(request: SoundEffectRequest): Promise<Buffer>;
}
