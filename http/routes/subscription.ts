import { EmptyRequestSchema } from '../../protocols/account.js';
import {
  AccountSubscriptionObjectSchema,
  CheckoutObjectSchema,
  PlanRequestSchema,
  PortalObjectSchema,
  SubscriptionObjectSchema,
} from '../../protocols/payments.js';
import type { AppDeps } from '../app-deps.js';
import { accountOf, json, type RequestContext, type RouteDef } from '../route.js';
import {
  accountSubscriptionView,
  portalView,
  subscriptionCheckoutView,
  subscriptionView,
} from '../views/account-billing-view.js';
import { idempotencyKeyOf } from './checkout.js';

/** The account's subscription: overview and plans, checkout, cancel, change, portal. */
export function subscriptionRoutes({ payments: { subscriptions } }: AppDeps): RouteDef[] {
  const me = (ctx: RequestContext) => accountOf(ctx.principal).id;
  return [
    {
      method: 'GET',
      path: '/v1/account/subscription',
      auth: 'account',
      schema: { response: AccountSubscriptionObjectSchema },
      handler: (ctx) => json(accountSubscriptionView(subscriptions.current(me(ctx)))),
    },
    {
      method: 'POST',
      path: '/v1/account/subscription/checkout',
      auth: 'session',
      schema: { body: PlanRequestSchema, response: CheckoutObjectSchema, status: 201 },
      async handler(ctx) {
        const { plan } = await ctx.json(PlanRequestSchema);
        return json(
          subscriptionCheckoutView(await subscriptions.checkout(me(ctx), plan, idempotencyKeyOf(ctx.ex.headers))),
          201,
        );
      },
    },
    {
      method: 'POST',
      path: '/v1/account/subscription/cancel',
      auth: 'session',
      schema: { body: EmptyRequestSchema, bodyOptional: true, response: SubscriptionObjectSchema, status: 202 },
      async handler(ctx) {
        await ctx.optionalJson(EmptyRequestSchema);
        return json(subscriptionView(await subscriptions.cancel(me(ctx))), 202);
      },
    },
    {
      method: 'POST',
      path: '/v1/account/subscription/change',
      auth: 'session',
      schema: { body: PlanRequestSchema, response: SubscriptionObjectSchema, status: 202 },
      async handler(ctx) {
        const { plan } = await ctx.json(PlanRequestSchema);
        return json(subscriptionView(await subscriptions.change(me(ctx), plan)), 202);
      },
    },
    {
      method: 'POST',
      path: '/v1/account/subscription/portal',
      auth: 'session',
      schema: { body: EmptyRequestSchema, bodyOptional: true, response: PortalObjectSchema },
      async handler(ctx) {
        await ctx.optionalJson(EmptyRequestSchema);
        return json(portalView(await subscriptions.portal(me(ctx))));
      },
    },
  ];
}
