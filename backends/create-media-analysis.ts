import type { ImageAnalysisBackend } from './image-analysis.js';
import { createSimImageAnalysisBackend } from './sim/sim-image-analysis.js';
import { createSimTranscriptionBackend } from './sim/sim-transcription.js';
import { createSimVideoAnalysisBackend } from './sim/sim-video-analysis.js';
import type { TranscriptionBackend } from './transcription.js';
import type { VideoAnalysisBackend } from './video-analysis.js';

/** The analysers that turn non-text chat parts into text. */
export interface MediaAnalysisBackends {
  images: ImageAnalysisBackend;
  transcription: TranscriptionBackend;
  video: VideoAnalysisBackend;
}

/** The media analysers for chat parts: the sim's (the only ones so far). */
export function createMediaAnalysisBackends(): MediaAnalysisBackends {
  return {
    images: createSimImageAnalysisBackend(),
    transcription: createSimTranscriptionBackend(),
    video: createSimVideoAnalysisBackend(),
  };
}
