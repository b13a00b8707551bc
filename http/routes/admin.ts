import { EARLY_ACCESS_PRODUCTS, type EarlyAccessProduct } from '../../protocols/payments.js';
import {
  AdminAccountObjectSchema,
  AdminCreateAccountSchema,
  AdminCreatedAccountObjectSchema,
  AdminCreditedObjectSchema,
  AdminCreditSchema,
  AdminEarlyAccessObjectSchema,
  AdminEarlyAccessSchema,
  AdminSetTierSchema,
  AdminStatusSchema,
  AdminWaitlistObjectSchema,
  AdminWaitlistQuerySchema,
  MachineDefinitionsObjectSchema,
} from '../../protocols/admin.js';
import { ApiError } from '../../protocols/errors.js';
import type { AppDeps } from '../app-deps.js';
import { json, type RouteDef } from '../route.js';
import {
  adminAccountView,
  adminCreatedAccountView,
  adminCreditedView,
  machineDefinitionsView,
} from '../views/admin-view.js';
import { adminEarlyAccessView, adminWaitlistView } from '../views/account-waitlist-view.js';

function productParam(value: string): EarlyAccessProduct {
  if ((EARLY_ACCESS_PRODUCTS as readonly string[]).includes(value)) return value as EarlyAccessProduct;
  throw new ApiError('not_found', `No early-access product ${value.slice(0, 100)}.`, { param: 'product' });
}

/** The operator API under /admin/v1; registered only when SVC_ADMIN_KEY is set. */
export function adminRoutes({ config, accounts: { admin }, host, completions }: AppDeps): RouteDef[] {
  if (!config.SVC_ADMIN_KEY) return [];
  return [
    {
      // Every machine's definition as JSON, for visualisers and the inspector.
      method: 'GET',
      path: '/admin/v1/machines',
      auth: 'admin',
      schema: { response: MachineDefinitionsObjectSchema },
      handler: () =>
        json(machineDefinitionsView({ ...host.definitions(), completion: completions.machineDefinition() })),
    },
    {
      method: 'POST',
      path: '/admin/v1/accounts',
      auth: 'admin',
      schema: { body: AdminCreateAccountSchema, response: AdminCreatedAccountObjectSchema, status: 201 },
      async handler(ctx) {
        const body = await ctx.json(AdminCreateAccountSchema);
        return json(adminCreatedAccountView(await admin.createAccount(body)), 201);
      },
    },
    {
      method: 'GET',
      path: '/admin/v1/accounts/:id',
      auth: 'admin',
      schema: { response: AdminAccountObjectSchema },
      handler: (ctx) => json(adminAccountView(admin.account(ctx.params.id!))),
    },
    {
      method: 'POST',
      path: '/admin/v1/accounts/:id/credit',
      auth: 'admin',
      schema: { body: AdminCreditSchema, response: AdminCreditedObjectSchema },
      async handler(ctx) {
        const body = await ctx.json(AdminCreditSchema);
        const { overview, entryId } = await admin.credit(ctx.params.id!, body);
        return json(adminCreditedView(overview, entryId));
      },
    },
    {
      method: 'POST',
      path: '/admin/v1/accounts/:id/status',
      auth: 'admin',
      schema: { body: AdminStatusSchema, response: AdminAccountObjectSchema },
      async handler(ctx) {
        const body = await ctx.json(AdminStatusSchema);
        return json(adminAccountView(await admin.setStatus(ctx.params.id!, body)));
      },
    },
    {
      method: 'POST',
      path: '/admin/v1/accounts/:id/tier',
      auth: 'admin',
      schema: { body: AdminSetTierSchema, response: AdminAccountObjectSchema },
      async handler(ctx) {
        const body = await ctx.json(AdminSetTierSchema);
        return json(adminAccountView(await admin.setTier(ctx.params.id!, body)));
      },
    },
    {
      method: 'GET',
      path: '/admin/v1/accounts/:id/early-access',
      auth: 'admin',
      schema: { response: AdminEarlyAccessObjectSchema },
      handler: (ctx) => json(adminEarlyAccessView(ctx.params.id!, admin.earlyAccess(ctx.params.id!))),
    },
    {
      method: 'POST',
      path: '/admin/v1/accounts/:id/early-access',
      auth: 'admin',
      schema: { body: AdminEarlyAccessSchema, response: AdminEarlyAccessObjectSchema },
      async handler(ctx) {
        const body = await ctx.json(AdminEarlyAccessSchema);
        return json(adminEarlyAccessView(ctx.params.id!, await admin.grantEarlyAccess(ctx.params.id!, body)));
      },
    },
    {
      method: 'DELETE',
      path: '/admin/v1/accounts/:id/early-access/:product',
      auth: 'admin',
      schema: { response: AdminEarlyAccessObjectSchema },
      async handler(ctx) {
        return json(
          adminEarlyAccessView(
            ctx.params.id!,
            await admin.revokeEarlyAccess(ctx.params.id!, productParam(ctx.params.product!)),
          ),
        );
      },
    },
    {
      method: 'GET',
      path: '/admin/v1/waitlist',
      auth: 'admin',
      schema: { query: AdminWaitlistQuerySchema, response: AdminWaitlistObjectSchema },
      handler(ctx) {
        const { product, limit } = ctx.query(AdminWaitlistQuerySchema);
        return json(adminWaitlistView(admin.waitlist(product, limit)));
      },
    },
  ];
}
