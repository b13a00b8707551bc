import type { ImageTier } from '../protocols/images.js';

/** One clip to make, fully decided. Plain data: it is persisted with the job. */
export interface VideoSpec {
  prompt: string;
  width: number;
  height: number;
  durationSeconds: number;
  tier: ImageTier;
  seed: number;
  /** The request's `metadata.sim` (scripted behaviours of the sim; ignored by other backends). */
  script: Record<string, unknown> | null;
}

/** A job at the backend: its id there and when it started. Plain data, persisted with the job. */
export interface RemoteVideoJob {
  id: string;
  startedAt: number;
}

/** What the backend says of a job. */
export type VideoPoll =
  | { state: 'running'; progress: number }
  | { state: 'completed'; costMicros: number }
  | { state: 'failed'; code: string; message: string };

/**
 * Job-based video generation (sim, an OpenAI-compatible upstream's `/videos`). The job lives at
 * the backend: `submit` starts it, `poll` reads it, `download` fetches the MP4 once completed,
 * `cancel` stops it (best effort). Every call is idempotent for a given job, so a step cut short
 * by a crash runs again. Failures are TerminalError or RetryableError.
 */
export interface VideoBackend {
  readonly name: string;
  /** The declared cost of a clip, known before the job starts (what the hold covers). */
  costMicros(spec: VideoSpec): number;
  /** How long the backend is expected to take, for estimates. */
  expectedMs(spec: VideoSpec): number;
  /** Starts the job; `key` (our job id) lets an upstream that honours Idempotency-Key make it once across retries. */
  submit(spec: VideoSpec, key: string, signal: AbortSignal): Promise<RemoteVideoJob>;
  poll(job: RemoteVideoJob, spec: VideoSpec, signal: AbortSignal): Promise<VideoPoll>;
  download(job: RemoteVideoJob, spec: VideoSpec, signal: AbortSignal): Promise<Buffer>;
  cancel(job: RemoteVideoJob): Promise<void>;
}
