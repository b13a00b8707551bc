import { AccountTierObjectSchema } from '../../protocols/payments.js';
import {
  AccountObjectSchema,
  AccountUsageObjectSchema,
  AccountUsageQuerySchema,
  ChangePasswordRequestSchema,
  LoginSessionObjectSchema,
} from '../../protocols/account.js';
import type { AppDeps } from '../app-deps.js';
import { accountOf, json, type RouteDef } from '../route.js';
import { accountUsageView, accountView, loginSessionView } from '../views/account-view.js';
import { accountTierView } from '../views/account-billing-view.js';

/** The account overview, its tier, password change and account usage. */
export function accountRoutes({ accounts }: AppDeps): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/v1/account',
      auth: 'account',
      schema: { response: AccountObjectSchema },
      handler: (ctx) => json(accountView(accounts.account.overview(accountOf(ctx.principal).id))),
    },
    {
      method: 'GET',
      path: '/v1/account/tier',
      auth: 'account',
      schema: { response: AccountTierObjectSchema },
      handler: (ctx) => json(accountTierView(accounts.account.tier(accountOf(ctx.principal).id))),
    },
    {
      method: 'POST',
      path: '/v1/account/password',
      auth: 'session',
      schema: { body: ChangePasswordRequestSchema, response: LoginSessionObjectSchema },
      async handler(ctx) {
        const body = await ctx.json(ChangePasswordRequestSchema);
        return json(loginSessionView(await accounts.login.changePassword(accountOf(ctx.principal).id, body)));
      },
    },
    {
      method: 'GET',
      path: '/v1/account/usage',
      auth: 'account',
      schema: { query: AccountUsageQuerySchema, response: AccountUsageObjectSchema },
      handler(ctx) {
        const { limit } = ctx.query(AccountUsageQuerySchema);
        return json(accountUsageView(accounts.account.usage(accountOf(ctx.principal).id, limit)));
      },
    },
  ];
}
