import { accountView } from '../../protocols/account.js';
import { AdminCreateAccountSchema, AdminCreditSchema, AdminStatusSchema } from '../../protocols/admin.js';
import { ApiError } from '../../protocols/errors.js';
import { usdToMicros } from '../../protocols/money.js';
import type { AccountServices } from '../../runtime/accounts/account-services.js';
import type { AppDeps } from '../app.js';
import { runtimeCompletionMachine } from '../chat/completion-run.js';
import { json, type RouteDef } from '../route.js';

function requireAccount(services: AccountServices, id: string) {
  const account = services.accounts.get(id);
  if (!account) throw new ApiError('not_found', `No account with id ${id}.`, { param: 'id' });
  return account;
}

/** The operator API under /admin/v1; registered only when SVC_ADMIN_KEY is set. */
export function adminRoutes({ config, services, host }: AppDeps): RouteDef[] {
  if (!config.SVC_ADMIN_KEY) return [];
  const view = (id: string) => accountView(services.accounts.get(id)!, services.ledger.state(id).held);
  return [
    {
      // Every machine's definition as JSON, for visualisers and the inspector.
      method: 'GET',
      path: '/admin/v1/machines',
      auth: 'admin',
      handler: () => json({ object: 'list', data: { ...host.definitions(), completion: runtimeCompletionMachine.toJSON() } }),
    },
    {
      method: 'POST',
      path: '/admin/v1/accounts',
      auth: 'admin',
      async handler(ctx) {
        const body = await ctx.json(AdminCreateAccountSchema);
        const created = await services.createAccount({
          email: body.email,
          password: body.password ?? null,
          creditMicros: body.credit_usd === undefined ? 0 : usdToMicros(body.credit_usd),
          tokenLabel: 'admin-issued',
        });
        if (!created) throw new ApiError('email_taken', 'An account with this e-mail already exists.', { param: 'email', headers: { 'x-should-retry': 'false' } });
        return json({ account: view(created.account.id), api_token: { id: created.token!.record.id, token: created.token!.value } }, 201);
      },
    },
    {
      method: 'GET',
      path: '/admin/v1/accounts/:id',
      auth: 'admin',
      handler: (ctx) => json({ account: view(requireAccount(services, ctx.params.id!).id) }),
    },
    {
      method: 'POST',
      path: '/admin/v1/accounts/:id/credit',
      auth: 'admin',
      async handler(ctx) {
        const body = await ctx.json(AdminCreditSchema);
        const account = requireAccount(services, ctx.params.id!);
        const entry = await services.ledger.credit(account.id, usdToMicros(body.usd), body.description ?? 'operator top-up');
        if (!entry) throw new ApiError('not_found', `No account with id ${account.id}.`, { param: 'id' });
        return json({ account: view(account.id), entry_id: entry.id });
      },
    },
    {
      method: 'POST',
      path: '/admin/v1/accounts/:id/status',
      auth: 'admin',
      async handler(ctx) {
        const body = await ctx.json(AdminStatusSchema);
        const account = requireAccount(services, ctx.params.id!);
        await services.setStatus(account.id, body.status);
        return json({ account: view(account.id) });
      },
    },
  ];
}
