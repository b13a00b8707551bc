import type { Clock } from '../runtime/clock.js';
import type { Config } from '../runtime/config.js';
import type { ImageBackend } from './image-generation.js';
import { createOpenAICompatibleImageBackend } from './images/openai-compatible-image-backend.js';
import { createSimImageBackend } from './images/sim-image-backend.js';
import { createTesseractOcr, tesseractAvailable } from './local/tesseract-ocr.js';
import type { OcrBackend } from './ocr.js';
import type { VideoBackend } from './video-generation.js';
import { createOpenAICompatibleVideoBackend } from './video/openai-compatible-video-backend.js';
import { createSimVideoBackend } from './video/sim-video-backend.js';

/** The backends of image and video generation, and OCR for image text policies (null where tesseract is missing). */
export interface MediaGenerationBackends {
  images: ImageBackend;
  video: VideoBackend;
  ocr: OcrBackend | null;
}

/** The image and video backends `SVC_IMAGE_BACKEND` and `SVC_VIDEO_BACKEND` name, and tesseract when installed. */
export function createMediaGenerationBackends(config: Config, clock: Clock): MediaGenerationBackends {
  const upstream = {
    baseUrl: config.SVC_UPSTREAM_BASE_URL ?? '',
    apiKey: config.SVC_UPSTREAM_API_KEY ?? null,
    timeoutMs: config.SVC_UPSTREAM_TIMEOUT_MS,
  };
  const images =
    config.SVC_IMAGE_BACKEND === 'openai-compatible'
      ? createOpenAICompatibleImageBackend({ ...upstream, model: config.SVC_UPSTREAM_IMAGE_MODEL })
      : createSimImageBackend({ clock, latencyMs: config.SVC_SIM_IMAGE_LATENCY_MS });
  const video =
    config.SVC_VIDEO_BACKEND === 'openai-compatible'
      ? createOpenAICompatibleVideoBackend({
          ...upstream,
          model: config.SVC_UPSTREAM_VIDEO_MODEL,
          now: () => clock.now(),
        })
      : createSimVideoBackend({ clock, secondsPerSecond: config.SVC_SIM_VIDEO_SECONDS_PER_SECOND });
  return { images, video, ocr: tesseractAvailable() ? createTesseractOcr() : null };
}
