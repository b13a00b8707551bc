// A video job's data: its input, context between events, what its runtime steps take and return,
// and the events it takes and emits. Plain data throughout, persisted with the machine's snapshot.
import type { RemoteVideoJob, VideoPoll, VideoSpec } from '../../backends/video-generation.js';

/** Everything a job starts with; plain data, persisted with the snapshot. */
export interface VideoJobInput {
  id: string;
  accountId: string;
  tokenId: string | null;
  model: string;
  quality: string | null;
  spec: VideoSpec;
  backend: string;
  /** The backend's declared cost of the clip and the price held for it, micro-USD. */
  costMicros: number;
  holdMicros: number;
  /** Where the output is stored once made (fixed at creation, so a repeated store step writes the same place). */
  mediaId: string;
  at: number;
  /** Time between polls of a running job. */
  pollMs: number;
}

/** Why a job failed, in the wire's terms. */
export interface JobError {
  code: string;
  message: string;
}

/** A job's state between events. */
export interface VideoJobContext extends VideoJobInput {
  progress: number;
  remote: RemoteVideoJob | null;
  startedAt: number | null;
  finishedAt: number | null;
  priceMicros: number;
  output: { bytes: number; contentType: string } | null;
  error: JobError | null;
  cancelReason: string | null;
  /** Polls in a row that the backend could not answer (retryable); past a bound the job fails. */
  pollFailures: number;
  /** Submits the backend turned away with a retryable failure (it was busy or down); past a bound the job fails. */
  submitFailures?: number;
  deadlines: { poll?: number | null; submit?: number | null };
  updatedAt: number;
}

/** Events the service, the scheduler and the host's timers send to a job. */
export type VideoJobEvent =
  | { type: 'START'; at: number }
  | { type: 'CANCEL'; at: number; reason: string | null }
  | { type: 'TIMER'; name: string };

/** What the runtime's `submit` step returns: the backend's job, or a retryable refusal (busy, down, timed out), and when. */
export type SubmitOutput = ({ remote: RemoteVideoJob } | { retry: string; retryAfterMs: number | null }) & {
  at: number;
};

/** What the runtime's `poll` step returns: the backend's answer (a retryable failure as `retry`), and when. */
export type PollOutput = (VideoPoll | { state: 'retry'; message: string }) & { at: number };

/**
 * What a job emits into its log: its steps, progress while running, and how it ended (money in
 * micro-USD). http/views/video-events.ts renders them on the wire.
 */
export type VideoJobEmitted =
  | { type: 'queued' }
  | { type: 'started' }
  | { type: 'progress'; progress: number }
  | { type: 'completed'; mediaId: string; priceMicros: number; costMicros: number; bytes: number }
  | { type: 'failed'; code: string; message: string }
  | { type: 'cancelled'; reason: string | null };

/** Input of the runtime's `finish` step: charge a completed job once, or let the hold go. */
export interface FinishInput {
  jobId: string;
  accountId: string;
  tokenId: string | null;
  outcome: 'completed' | 'failed' | 'cancelled';
  model: string;
  spec: VideoSpec;
  costMicros: number;
  holdMicros: number;
  remote: RemoteVideoJob | null;
}

/** Input of the runtime's `store` step. */
export interface StoreInput {
  jobId: string;
  mediaId: string;
  accountId: string;
  remote: RemoteVideoJob;
  spec: VideoSpec;
}
