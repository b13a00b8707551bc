import type { VideoAnalysis, VideoAnalysisBackend, VideoAnalysisRequest } from '../video-analysis.js';
import { readVideoHeader } from '../video-header.js';
import { UnreadableMediaError } from '../unreadable-media-error.js';
import { seedFromBytes, SIM_WORDS_PER_SECOND, simSpeech } from './sim-media-seed.js';
import { simScene } from './sim-scene.js';

/** Without a declared duration the sim assumes 1 Mbit/s. */
const ESTIMATE_BYTES_PER_SECOND = 1_000_000 / 8;
/** At most this many frames are described, one every two seconds before that. */
const MAX_FRAMES = 8;
/** The sim's transcript of a long video stops here, so the description stays readable. */
const MAX_SPOKEN_WORDS = 60;

async function analyse(request: VideoAnalysisRequest): Promise<VideoAnalysis> {
  request.signal.throwIfAborted();
  const header = await readVideoHeader(request.video);
  if (!header) throw new UnreadableMediaError('not a recognised video (MP4, MOV, 3GP, WebM, Matroska or AVI)');
  const durationEstimated = header.durationSeconds === null;
  const durationSeconds = header.durationSeconds ?? request.video.length / ESTIMATE_BYTES_PER_SECOND;
  const random = seedFromBytes(request.video, 'video');
  const count = Math.min(MAX_FRAMES, Math.max(1, Math.ceil(durationSeconds / 2)));
  const frames = Array.from({ length: count }, (_, i) => ({
    atSeconds: (i * durationSeconds) / count,
    description: simScene(random),
  }));
  const words = Math.min(MAX_SPOKEN_WORDS, Math.round(durationSeconds * SIM_WORDS_PER_SECOND));
  const transcript = simSpeech(seedFromBytes(request.video, 'speech'), words);
  return {
    container: header.container,
    width: header.width,
    height: header.height,
    durationSeconds,
    durationEstimated,
    frames,
    transcript,
  };
}

/**
 * The embedded video analyser: container facts from the header (MP4 duration and size, AVI
 * frame count; otherwise estimated at 1 Mbit/s), up to 8 frame scenes and a short transcript,
 * all derived from a hash of the bytes, instant.
 */
export function createSimVideoAnalysisBackend(): VideoAnalysisBackend {
  return {
    name: 'sim',
    analyse: (request) => Promise.resolve(request).then(analyse),
  };
}
