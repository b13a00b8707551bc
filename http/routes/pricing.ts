import { estimateChat } from '../../actors/chat/chat-estimate.js';
import { EstimateObjectSchema, MEDIA_MODALITIES, PricingObjectSchema, tariff } from '../../protocols/pricing.js';
import { z } from 'zod';
import type { AppDeps } from '../app-deps.js';
import { json, type RouteDef } from '../route.js';

/** The `modality` that picks the estimator: absent or `chat` prices a chat request. */
const EstimateModalitySchema = z.looseObject({ modality: z.enum(['chat', ...MEDIA_MODALITIES]).optional() });

/** The public tariff and the cost/time estimate (no backend call, no balance needed). */
export function pricingRoutes({ chat, media, audio }: AppDeps): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/v1/pricing',
      auth: 'public',
      schema: { response: PricingObjectSchema },
      handler: () => json(tariff(audio.rates)),
    },
    {
      method: 'POST',
      path: '/v1/estimate',
      auth: 'public',
      schema: { body: EstimateModalitySchema, response: EstimateObjectSchema },
      async handler(ctx) {
        const raw = await ctx.json(EstimateModalitySchema);
        if (raw.modality !== undefined && raw.modality !== 'chat') return json(media.estimate(raw.modality, raw));
        return json(estimateChat(raw, chat.latency));
      },
    },
  ];
}
