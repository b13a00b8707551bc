import { microsToUsd } from '../../protocols/money.js';
import type { AppDeps } from '../app.js';
import { json, type RouteDef } from '../route.js';

/** GET /v1/usage: the calling key's requests, denials, tokens and cost. */
export function usageRoutes({ services }: AppDeps): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/v1/usage',
      auth: 'token',
      handler(ctx) {
        const token = ctx.principal.token!;
        const usage = services.keyUsage.get(token.id);
        return json({
          object: 'usage',
          token_id: token.id,
          requests: usage.requests,
          denied: usage.denied,
          prompt_tokens: usage.promptTokens,
          completion_tokens: usage.completionTokens,
          total_tokens: usage.promptTokens + usage.completionTokens,
          cost_usd: microsToUsd(usage.cost),
          last_used_at: usage.lastUsedAt === null ? null : Math.floor(usage.lastUsedAt / 1000),
        });
      },
    },
  ];
}
