import { AudioFeature } from '../../actors/audio/audio-feature.js';
import type { Billing } from '../../actors/billing/billing.js';
import { MediaEstimates } from '../../actors/billing/media-estimates.js';
import type { PartResolverOptions } from '../../actors/chat/parts/part-context.js';
import type { FileService } from '../../actors/files/file-service.js';
import { imageEstimator } from '../../actors/images/image-estimates.js';
import { ImageService } from '../../actors/images/image-service.js';
import { MediaLinks } from '../../actors/images/media-links.js';
import { videoEstimator } from '../../actors/video/video-job-plan.js';
import { VideoJobService } from '../../actors/video/video-job-service.js';
import { VideoProjectService } from '../../actors/video/video-project-service.js';
import { createAudioEngines } from '../../backends/create-audio-backends.js';
import { createMediaGenerationBackends } from '../../backends/create-media-generation.js';
import type { BlobStore } from '../../runtime/blobs/blob-store.js';
import type { Clock } from '../../runtime/clock.js';
import type { Config } from '../../runtime/config.js';
import type { ActorHost } from '../../runtime/host/actor-host.js';
import type { Logger } from '../../runtime/logger.js';
import type { Store } from '../../runtime/store/store.js';
import type { Tracer } from '@opentelemetry/api';
import { traceAudioEngines, traceGeneration } from './traced-backends.js';

/** The media features as the composition root wires them. */
export interface WiredMedia {
  images: ImageService;
  videos: VideoJobService;
  videoProjects: VideoProjectService;
  mediaLinks: MediaLinks;
  audio: AudioFeature;
  /** Estimators by modality (`POST /v1/estimate`). */
  media: MediaEstimates;
}

/**
 * Images and video (backends, media behind signed URLs, the job actors registered with the host,
 * projects), audio, and each one's estimator.
 */
export function wireMedia(
  config: Config,
  parts: {
    store: Store;
    blobs: BlobStore;
    host: ActorHost;
    billing: Billing;
    files: FileService;
    fetch: PartResolverOptions['fetch'];
    clock: Clock;
    logger: Logger;
    /** Set while tracing is on: each image and audio engine call is a client span. */
    tracer: Tracer | null;
  },
): WiredMedia {
  const { store, blobs, host, billing, files, clock, logger, tracer } = parts;
  const media = new MediaEstimates();
  const generation = traceGeneration(config, tracer, createMediaGenerationBackends(config, clock));
  const mediaLinks = new MediaLinks(store, blobs, clock, logger);
  const images = new ImageService({
    backend: generation.images,
    ocr: generation.ocr,
    billing,
    links: mediaLinks,
    clock,
    files,
    fetch: parts.fetch,
    urlTtlMs: config.SVC_MEDIA_URL_TTL_S * 1000,
  });
  const videos = new VideoJobService({
    host,
    billing,
    backend: generation.video,
    links: mediaLinks,
    store,
    clock,
    logger,
    pollMs: config.SVC_VIDEO_POLL_MS,
    maxRunning: config.SVC_VIDEO_MAX_RUNNING,
  });
  host.register(videos.hosted());
  const videoProjects = new VideoProjectService({ store, clock, jobs: videos });
  media.register('image', imageEstimator(generation.images, 'image'));
  media.register('image_edit', imageEstimator(generation.images, 'image_edit'));
  media.register('video', videoEstimator(generation.video));
  const engines = traceAudioEngines(config, tracer, createAudioEngines(config));
  const audio = new AudioFeature({ engines, billing, store, blobs, clock, logger });
  audio.registerEstimates(media);
  return { images, videos, videoProjects, mediaLinks, audio, media };
}
