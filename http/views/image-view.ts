import type { ImageResult } from '../../actors/images/image-service.js';
import type { ImagesResponse } from '../../protocols/images.js';
import { microsToUsd } from '../../protocols/money.js';
import { MODEL_VERSION } from '../../protocols/models.js';
import { MEDIA_MARKUP_PERCENT, PRICING_VERSION } from '../../protocols/pricing.js';

/**
 * POST /v1/images/generations and /v1/images/edits: OpenAI's images response (each image as
 * `b64_json`, or as a signed `url` made by `urlOf`) and the `svc` block with the tier, both the
 * backend's cost and the price charged, and every attempt of a text policy.
 */
export function imagesResponseView(
  result: ImageResult,
  urlOf: (mediaId: string, expiresAt: number) => string,
): ImagesResponse {
  const { plan } = result;
  return {
    created: result.created,
    data: result.images.map((image) =>
      image.mediaId !== null && result.urlExpiresAt !== null
        ? { url: urlOf(image.mediaId, result.urlExpiresAt) }
        : { b64_json: image.bytes.toString('base64') },
    ),
    background: plan.background,
    output_format: plan.format,
    quality: plan.quality,
    size: `${plan.geometry.width}x${plan.geometry.height}`,
    svc: {
      model_version: MODEL_VERSION,
      tier: plan.tier,
      backend: result.backend,
      price_usd: microsToUsd(result.priceMicros),
      our_cost_usd: microsToUsd(result.costMicros),
      billing: { pricing_version: PRICING_VERSION, billing_basis: 'cost_plus', markup_percent: MEDIA_MARKUP_PERCENT },
      text_policy: plan.policy,
      seed: plan.seed,
      attempts: result.attempts.map((attempt) => ({
        image: attempt.image,
        attempt: attempt.attempt,
        outcome: attempt.outcome,
        ocr_text: attempt.ocrText,
        our_cost_usd: microsToUsd(attempt.costMicros),
        price_usd: microsToUsd(attempt.priceMicros),
      })),
      url_expires_at: result.urlExpiresAt === null ? null : Math.floor(result.urlExpiresAt / 1000),
    },
  };
}
