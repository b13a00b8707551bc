import { WebhookAckObjectSchema } from '../../protocols/payments.js';
import type { AppDeps } from '../app-deps.js';
import { json, type RouteDef } from '../route.js';
import { webhookAckView } from '../views/account-billing-view.js';

/** Largest webhook body read (Stripe events are a few KiB). */
const WEBHOOK_MAX_BYTES = 1024 * 1024;

/**
 * POST /v1/webhooks/stripe: the payment provider's signed events, verified against the raw body.
 * Served only when payments are configured (otherwise there is nothing to verify with: 404).
 */
export function webhookRoutes({ payments }: AppDeps): RouteDef[] {
  if (!payments.configured) return [];
  return [
    {
      method: 'POST',
      path: '/v1/webhooks/stripe',
      auth: 'public',
      maxBodyBytes: WEBHOOK_MAX_BYTES,
      // The Stripe event's raw bytes: the signature is checked against them before any parse.
      schema: { rawBody: 'application/json', response: WebhookAckObjectSchema },
      async handler(ctx) {
        const payload = await ctx.ex.readBody(WEBHOOK_MAX_BYTES);
        const signature = ctx.ex.headers['stripe-signature'];
        return json(webhookAckView(await payments.webhooks.receive(payload, signature, ctx.log)));
      },
    },
  ];
}
