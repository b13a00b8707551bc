import { randomInt } from 'node:crypto';
import type { VideoBackend, VideoSpec } from '../../backends/video-generation.js';
import type { ImageTier } from '../../protocols/images.js';
import { resolveGeometry } from '../../protocols/images.js';
import { microsToUsd } from '../../protocols/money.js';
import { requireModel } from '../../protocols/models.js';
import {
  MEDIA_MARKUP_PERCENT,
  PRICING_VERSION,
  mediaPriceMicros,
  type MediaEstimateObject,
} from '../../protocols/pricing.js';
import { fieldError, parseOrThrow } from '../../protocols/validation.js';
import {
  DEFAULT_VIDEO_SECONDS,
  DEFAULT_VIDEO_SIZE,
  MAX_VIDEO_SECONDS,
  VIDEO_GEOMETRY,
  VideoGenerationRequestSchema,
  type VideoGenerationRequest,
} from '../../protocols/video.js';
import type { MediaEstimator } from '../billing/media-estimates.js';

/** Above this many pixels (1280×720) a clip is premium unless `quality` says otherwise. */
export const PREMIUM_VIDEO_PIXELS = 1280 * 720;

/** A job decided before any spend: the clip, its declared cost and the price held. */
export interface VideoPlan {
  spec: VideoSpec;
  costMicros: number;
  holdMicros: number;
}

/** The clip length: `duration_seconds`, or the SDK's `seconds`, or 4; a 422 naming the field when outside 1–60 or when both disagree. */
export function clipSeconds(request: Pick<VideoGenerationRequest, 'duration_seconds' | 'seconds'>): number {
  const fromSeconds = request.seconds === null || request.seconds === undefined ? null : Number(request.seconds);
  if (fromSeconds !== null && (!Number.isInteger(fromSeconds) || fromSeconds < 1 || fromSeconds > MAX_VIDEO_SECONDS))
    throw fieldError(['body', 'seconds'], `must be a whole number of seconds from 1 to ${MAX_VIDEO_SECONDS}`);
  const duration = request.duration_seconds ?? null;
  if (duration !== null && fromSeconds !== null && duration !== fromSeconds)
    throw fieldError(['body', 'seconds'], 'disagrees with duration_seconds; give one of them');
  return duration ?? fromSeconds ?? DEFAULT_VIDEO_SECONDS;
}

/**
 * The tier rule for video (docs/video.md): `quality` `high`/`hd` premium, `low`/`standard`
 * standard; otherwise premium above 1280×720 pixels, standard at or below.
 */
export function videoTier(quality: VideoGenerationRequest['quality'], width: number, height: number): ImageTier {
  if (quality === 'high' || quality === 'hd') return 'premium';
  if (quality === 'low' || quality === 'standard') return 'standard';
  return width * height > PREMIUM_VIDEO_PIXELS ? 'premium' : 'standard';
}

/** Decides a job from its request (422 naming the field for anything unsupported); `seed` random when absent. */
export function planVideo(
  request: VideoGenerationRequest,
  backend: Pick<VideoBackend, 'costMicros'>,
  randomSeed: () => number = () => randomInt(0, 2 ** 31),
): VideoPlan {
  const { width, height } = resolveGeometry({ size: request.size }, DEFAULT_VIDEO_SIZE, VIDEO_GEOMETRY);
  const durationSeconds = clipSeconds(request);
  const sim = request.metadata?.sim;
  const spec: VideoSpec = {
    prompt: request.prompt,
    width,
    height,
    durationSeconds,
    tier: videoTier(request.quality, width, height),
    seed: request.seed ?? randomSeed(),
    script: sim && typeof sim === 'object' && !Array.isArray(sim) ? (sim as Record<string, unknown>) : null,
  };
  const costMicros = backend.costMicros(spec);
  return { spec, costMicros, holdMicros: mediaPriceMicros(costMicros) };
}

/** `POST /v1/estimate` for `video`: the job's price from the backend's declared cost, and its expected time. No backend call. */
export function videoEstimator(backend: VideoBackend): MediaEstimator {
  return (body) => {
    const request = parseOrThrow(VideoGenerationRequestSchema, body);
    const model = requireModel(request.model);
    const plan = planVideo(request, backend, () => 0);
    const estimate: MediaEstimateObject = {
      object: 'estimate',
      modality: 'video',
      model: model.id,
      pricing_version: PRICING_VERSION,
      backend: backend.name,
      units: {
        basis: `output_seconds (${plan.spec.width}x${plan.spec.height} ${plan.spec.tier}, about ${Math.round(backend.expectedMs(plan.spec) / 1000)} s to make)`,
        min: plan.spec.durationSeconds,
        max: plan.spec.durationSeconds,
      },
      our_cost_usd: { min: microsToUsd(plan.costMicros), max: microsToUsd(plan.costMicros) },
      cost_usd: { min: microsToUsd(plan.holdMicros), max: microsToUsd(plan.holdMicros) },
      markup_percent: MEDIA_MARKUP_PERCENT,
      hold_usd: microsToUsd(plan.holdMicros),
    };
    return estimate;
  };
}
