import { CheckoutObjectSchema, TopUpCheckoutRequestSchema } from '../../protocols/payments.js';
import type { AppDeps } from '../app-deps.js';
import { accountOf, json, type RouteDef } from '../route.js';
import { topUpCheckoutView } from '../views/account-billing-view.js';

/** POST /v1/account/checkout: a hosted checkout that funds the balance (session token, spec §5.3). */
export function checkoutRoutes({ payments }: AppDeps): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/v1/account/checkout',
      auth: 'session',
      schema: { body: TopUpCheckoutRequestSchema, response: CheckoutObjectSchema, status: 201 },
      async handler(ctx) {
        const body = await ctx.json(TopUpCheckoutRequestSchema);
        const checkout = await payments.checkout.topUp(
          accountOf(ctx.principal).id,
          body,
          idempotencyKeyOf(ctx.ex.headers),
        );
        return json(topUpCheckoutView(checkout), 201);
      },
    },
  ];
}

/** The client's `Idempotency-Key` (1 to 255 characters; longer or empty ones are ignored). */
export function idempotencyKeyOf(headers: Readonly<Record<string, string>>): string | undefined {
  const key = headers['idempotency-key'];
  return key !== undefined && key.length > 0 && key.length <= 255 ? key : undefined;
}
