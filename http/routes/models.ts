import { ApiError } from '../../protocols/errors.js';
import { findModel, MODEL_CATALOGUE } from '../../protocols/models.js';
import type { AppDeps } from '../app.js';
import { json, type RouteDef } from '../route.js';

/** Throws 404 `model_not_found` for an id the catalogue does not have. */
export function requireModel(id: string, param = 'model') {
  const model = findModel(id);
  if (!model) throw new ApiError('model_not_found', `The model '${id}' does not exist. Use pro-1 or a dated snapshot listed by GET /v1/models.`, { param });
  return model;
}

/** The model list and model cards. */
export function modelRoutes(_deps: AppDeps): RouteDef[] {
  return [
    { method: 'GET', path: '/v1/models', auth: 'account', handler: () => json({ object: 'list', data: MODEL_CATALOGUE }) },
    { method: 'GET', path: '/v1/models/:model_id', auth: 'account', handler: (ctx) => json(requireModel(ctx.params.model_id!, 'model_id')) },
  ];
}
