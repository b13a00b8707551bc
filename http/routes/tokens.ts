import { CreateTokenRequestSchema, PatchTokenRequestSchema, tokenView } from '../../protocols/account.js';
import { ApiError } from '../../protocols/errors.js';
import type { AppDeps } from '../app.js';
import { accountOf, json, type RouteDef } from '../route.js';

function notFound(id: string): ApiError {
  return new ApiError('not_found', `No API token with id ${id}.`, { param: 'token' });
}

/** API token management; all of it needs a login session, so a leaked API token cannot mint or revoke others. */
export function tokenRoutes({ services }: AppDeps): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/v1/account/tokens',
      auth: 'session',
      handler(ctx) {
        return json({ object: 'list', data: services.tokens.list(accountOf(ctx.principal).id).map(tokenView) });
      },
    },
    {
      method: 'POST',
      path: '/v1/account/tokens',
      auth: 'session',
      async handler(ctx) {
        const body = await ctx.json(CreateTokenRequestSchema);
        const created = await services.tokens.create({
          accountId: accountOf(ctx.principal).id,
          label: body.label,
          requestsPerMinute: body.requests_per_minute,
        });
        // The value is shown here once; only its hash is stored.
        return json({ ...tokenView(created.record), token: created.value }, 201);
      },
    },
    {
      method: 'PATCH',
      path: '/v1/account/tokens/:token',
      auth: 'session',
      async handler(ctx) {
        const body = await ctx.json(PatchTokenRequestSchema);
        const id = ctx.params.token!;
        const updated = await services.tokens.update(accountOf(ctx.principal).id, id, {
          ...(body.label !== undefined && { label: body.label }),
          ...(body.requests_per_minute !== undefined && { requestsPerMinute: body.requests_per_minute }),
          ...(body.enabled !== undefined && { enabled: body.enabled }),
        });
        if (!updated) throw notFound(id);
        return json(tokenView(updated));
      },
    },
    {
      method: 'DELETE',
      path: '/v1/account/tokens/:token',
      auth: 'session',
      async handler(ctx) {
        const id = ctx.params.token!;
        if (!(await services.tokens.delete(accountOf(ctx.principal).id, id))) throw notFound(id);
        services.rateLimiter.forget(id);
        return json({ id, object: 'api_token', deleted: true });
      },
    },
  ];
}
