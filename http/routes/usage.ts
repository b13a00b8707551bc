import { KeyUsageObjectSchema } from '../../protocols/account.js';
import type { AppDeps } from '../app-deps.js';
import { json, type RouteDef } from '../route.js';
import { keyUsageView } from '../views/account-view.js';

/** GET /v1/usage: the calling key's requests, denials, tokens and cost. */
export function usageRoutes({ accounts }: AppDeps): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/v1/usage',
      auth: 'token',
      schema: { response: KeyUsageObjectSchema },
      handler(ctx) {
        const tokenId = ctx.principal.token!.id;
        return json(keyUsageView(tokenId, accounts.account.keyUsage(tokenId)));
      },
    },
  ];
}
