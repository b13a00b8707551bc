import type { VideoContainer } from './video-header.js';

/** One video to analyse. */
export interface VideoAnalysisRequest {
  video: Buffer;
  signal: AbortSignal;
}

/** One sampled frame and what it shows. */
export interface VideoFrame {
  atSeconds: number;
  description: string;
}

/** What the analyser saw: container facts, sampled frames and the speech on the sound track. */
export interface VideoAnalysis {
  container: VideoContainer;
  width: number | null;
  height: number | null;
  durationSeconds: number;
  /** True when the container declared no duration and it was estimated from the size. */
  durationEstimated: boolean;
  frames: VideoFrame[];
  transcript: string;
}

/**
 * Video analysis, frame by frame plus the sound track's speech (sim, an upstream). Throws
 * UnreadableMediaError for bytes that are no recognised video, TerminalError or RetryableError
 * when the analyser fails.
 */
export interface VideoAnalysisBackend {
  readonly name: string;
  analyse(request: VideoAnalysisRequest): Promise<VideoAnalysis>;
}
