import { z } from 'zod';
import type { AppDeps } from '../app-deps.js';
import { json, type RouteDef } from '../route.js';

/** GET /v1/openapi.json: the OpenAPI 3.1 document generated from the route table. */
export function openApiRoutes({ contract }: AppDeps): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/v1/openapi.json',
      auth: 'public',
      schema: {
        summary: 'The OpenAPI 3.1 document of this API, generated from the route table',
        response: z.looseObject({ openapi: z.literal('3.1.0') }),
      },
      handler: () => json(contract.document()),
    },
  ];
}
