import { ApiError } from '../../protocols/errors.js';
import { findModel, MODEL_CATALOGUE, type ModelCard } from '../../protocols/models.js';
import type { AppDeps } from '../app.js';
import { json, type RouteDef } from '../route.js';

/** Throws 404 `model_not_found` for an id the catalogue does not have. */
export function requireModel(id: string, param = 'model') {
  const model = findModel(id);
  if (!model) throw new ApiError('model_not_found', `The model '${id}' does not exist. Use pro-1 or a dated snapshot listed by GET /v1/models.`, { param });
  return model;
}

/**
 * Validates `target_variant_id`: a dated snapshot the requested model can serve (any snapshot of
 * the moving id, or the snapshot itself). 422 otherwise, never silently ignored.
 */
export function requireVariant(variantId: string | null | undefined, model: ModelCard): void {
  if (variantId == null) return;
  const variant = findModel(variantId);
  if (variant && (variant.id === model.id || variant.snapshot_of === model.id)) return;
  throw new ApiError('validation_error', `target_variant_id '${variantId}' is not a variant of ${model.id}.`, {
    param: 'target_variant_id',
    detail: [{ loc: ['body', 'target_variant_id'], msg: `not a variant of ${model.id}; use one of its dated snapshots`, type: 'value_error' }],
  });
}

/** The model list and model cards. */
export function modelRoutes(_deps: AppDeps): RouteDef[] {
  return [
    { method: 'GET', path: '/v1/models', auth: 'account', handler: () => json({ object: 'list', data: MODEL_CATALOGUE }) },
    { method: 'GET', path: '/v1/models/:model_id', auth: 'account', handler: (ctx) => json(requireModel(ctx.params.model_id!, 'model_id')) },
  ];
}
