import {
  MODEL_CATALOGUE,
  ModelCardSchema,
  type ModelListObject,
  ModelListObjectSchema,
  requireModel,
} from '../../protocols/models.js';
import type { AppDeps } from '../app-deps.js';
import { json, type RouteDef } from '../route.js';

/** The model list and model cards. */
export function modelRoutes(_deps: AppDeps): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/v1/models',
      auth: 'account',
      schema: { response: ModelListObjectSchema },
      handler: () => json({ object: 'list', data: [...MODEL_CATALOGUE] } satisfies ModelListObject),
    },
    {
      method: 'GET',
      path: '/v1/models/:model_id',
      auth: 'account',
      schema: { response: ModelCardSchema },
      handler: (ctx) => json(requireModel(ctx.params.model_id!, 'model_id')),
    },
  ];
}
