import type { VideoJobState } from '../../actors/video/video-job-service.js';
import { microsToUsd } from '../../protocols/money.js';
import { MODEL_VERSION } from '../../protocols/models.js';
import { MEDIA_MARKUP_PERCENT, PRICING_VERSION } from '../../protocols/pricing.js';
import type { VideoJobObject } from '../../protocols/video.js';

/** Signs a media URL for the response being written: media id and expiry (ms) → URL. */
export type UrlSigner = (mediaId: string) => { url: string; expiresAt: number };

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));

/**
 * A video job on the wire, one shape for `/v1/videos/generations` (spec §2.7) and the SDK's
 * `/v1/videos`: OpenAI's `Video` fields, `data[].url` (signed, expiring, fresh on every read)
 * once completed, and the `svc` block with the tier, the charge (0 until completion) and the hold.
 */
export function videoJobView(job: VideoJobState, sign: UrlSigner): VideoJobObject {
  const { context, state } = job;
  const { spec } = context;
  const completed = state === 'completed';
  const link = completed ? sign(context.mediaId) : null;
  return {
    id: job.id,
    object: 'video',
    status: job.status,
    progress: completed ? 100 : context.progress,
    created_at: Math.floor(job.createdAt / 1000),
    started_at: seconds(context.startedAt),
    completed_at:
      job.status === 'completed' || job.status === 'failed' || job.status === 'cancelled'
        ? seconds(context.finishedAt ?? context.updatedAt)
        : null,
    expires_at: null,
    model: context.model,
    prompt: spec.prompt,
    seconds: String(spec.durationSeconds),
    duration_seconds: spec.durationSeconds,
    size: `${spec.width}x${spec.height}`,
    quality: context.quality,
    seed: spec.seed,
    remixed_from_video_id: null,
    error: state === 'failed' ? (context.error ?? { code: 'internal_error', message: 'the job failed' }) : null,
    data: link
      ? [
          {
            url: link.url,
            expires_at: Math.floor(link.expiresAt / 1000),
            content_type: context.output?.contentType ?? 'video/mp4',
            bytes: context.output?.bytes ?? 0,
          },
        ]
      : [],
    svc: {
      model_version: MODEL_VERSION,
      tier: spec.tier,
      backend: context.backend,
      price_usd: microsToUsd(context.priceMicros),
      our_cost_usd: microsToUsd(context.costMicros),
      hold_usd: microsToUsd(context.holdMicros),
      charged: completed && context.priceMicros > 0,
      billing: {
        pricing_version: PRICING_VERSION,
        billing_basis: 'cost_plus',
        markup_percent: MEDIA_MARKUP_PERCENT,
        charged: 'once_on_completion',
      },
      state,
    },
  };
}
