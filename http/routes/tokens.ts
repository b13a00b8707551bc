import {
  ApiTokenDeletedObjectSchema,
  ApiTokenListObjectSchema,
  ApiTokenObjectSchema,
  CreatedApiTokenObjectSchema,
  CreateTokenRequestSchema,
  PatchTokenRequestSchema,
} from '../../protocols/account.js';
import type { AppDeps } from '../app-deps.js';
import { accountOf, json, type RouteDef } from '../route.js';
import { createdTokenView, tokenDeletedView, tokenListView, tokenView } from '../views/account-view.js';

/** API token management; all of it needs a login session, so a leaked API token cannot mint or revoke others. */
export function tokenRoutes({ accounts: { tokens } }: AppDeps): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/v1/account/tokens',
      auth: 'session',
      schema: { response: ApiTokenListObjectSchema },
      handler: (ctx) => json(tokenListView(tokens.list(accountOf(ctx.principal).id))),
    },
    {
      method: 'POST',
      path: '/v1/account/tokens',
      auth: 'session',
      schema: { body: CreateTokenRequestSchema, response: CreatedApiTokenObjectSchema, status: 201 },
      async handler(ctx) {
        const body = await ctx.json(CreateTokenRequestSchema);
        return json(createdTokenView(await tokens.create(accountOf(ctx.principal).id, body)), 201);
      },
    },
    {
      method: 'PATCH',
      path: '/v1/account/tokens/:token',
      auth: 'session',
      schema: { body: PatchTokenRequestSchema, response: ApiTokenObjectSchema },
      async handler(ctx) {
        const body = await ctx.json(PatchTokenRequestSchema);
        return json(tokenView(await tokens.update(accountOf(ctx.principal).id, ctx.params.token!, body)));
      },
    },
    {
      method: 'DELETE',
      path: '/v1/account/tokens/:token',
      auth: 'session',
      schema: { response: ApiTokenDeletedObjectSchema },
      async handler(ctx) {
        await tokens.delete(accountOf(ctx.principal).id, ctx.params.token!);
        return json(tokenDeletedView(ctx.params.token!));
      },
    },
  ];
}
