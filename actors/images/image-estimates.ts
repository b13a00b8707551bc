import type { ImageBackend } from '../../backends/image-generation.js';
import { ImageGenerationRequestSchema } from '../../protocols/images.js';
import { microsToUsd } from '../../protocols/money.js';
import { requireModel } from '../../protocols/models.js';
import { MEDIA_MARKUP_PERCENT, PRICING_VERSION, type MediaEstimateObject } from '../../protocols/pricing.js';
import { parseOrThrow } from '../../protocols/validation.js';
import type { MediaEstimator } from '../billing/media-estimates.js';
import { planImages } from './image-plan.js';

/**
 * The estimator of `POST /v1/estimate` for `image` and `image_edit`: the request's plan (the same
 * geometry checks, tier rule and text policy as the real call, so a bad size is the same 422),
 * priced from the backend's declared cost, from `n` images to every repair used. No backend call.
 */
export function imageEstimator(backend: ImageBackend, modality: 'image' | 'image_edit'): MediaEstimator {
  return (body) => {
    const request = parseOrThrow(ImageGenerationRequestSchema, body);
    const model = requireModel(request.model);
    const plan = planImages(request, {
      costMicros: (tier, { width, height }) => backend.costMicros({ tier, width, height }),
      randomSeed: () => 0,
    });
    const most = plan.n * (1 + plan.maxRepairs);
    const estimate: MediaEstimateObject = {
      object: 'estimate',
      modality,
      model: model.id,
      pricing_version: PRICING_VERSION,
      backend: backend.name,
      units: { basis: `images (${plan.geometry.width}x${plan.geometry.height} ${plan.tier})`, min: plan.n, max: most },
      our_cost_usd: {
        min: microsToUsd(plan.n * plan.attemptCostMicros),
        max: microsToUsd(most * plan.attemptCostMicros),
      },
      cost_usd: { min: microsToUsd(plan.n * plan.attemptPriceMicros), max: microsToUsd(plan.holdMicros) },
      markup_percent: MEDIA_MARKUP_PERCENT,
      hold_usd: microsToUsd(plan.holdMicros),
    };
    return estimate;
  };
}
