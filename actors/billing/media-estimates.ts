import { ApiError } from '../../protocols/errors.js';
import type { MediaEstimateObject, MediaModality } from '../../protocols/pricing.js';

/** Prices one media request body without calling a backend (throws a 422 ApiError on a bad body). */
export type MediaEstimator = (body: Record<string, unknown>) => MediaEstimateObject;

/**
 * The estimators of the media features, by modality: each feature (audio, images, video) registers
 * its own in the composition root, and `POST /v1/estimate` with a `modality` asks here.
 */
export class MediaEstimates {
  private readonly estimators = new Map<MediaModality, MediaEstimator>();

  /** Registers the estimator of `modality`. */
  register(modality: MediaModality, estimator: MediaEstimator): void {
    this.estimators.set(modality, estimator);
  }

  /** The estimate of a media request; 422 for a modality nobody serves yet. */
  estimate(modality: MediaModality, body: Record<string, unknown>): MediaEstimateObject {
    const estimator = this.estimators.get(modality);
    if (!estimator) {
      throw new ApiError('validation_error', `Estimates for ${modality} are not served yet.`, {
        param: 'modality',
        detail: [{ loc: ['body', 'modality'], msg: `no estimator for ${modality}`, type: 'value_error' }],
      });
    }
    return estimator(body);
  }
}
