import { planChat } from '../../actors/chat/chat-plan.js';
import { countPromptTokens } from '../../protocols/tokens.js';
import { ChatCompletionRequestSchema } from '../../protocols/chat.js';
import { microsToUsd } from '../../protocols/money.js';
import { MODEL_VERSION, requireModel } from '../../protocols/models.js';
import { chatPriceMicros, MEDIA_MODALITIES, PRICING_VERSION, tariff, type EstimateObject } from '../../protocols/pricing.js';
import { parseOrThrow } from '../../protocols/validation.js';
import { z } from 'zod';
import type { AppDeps } from '../app.js';
import { json, type RouteDef } from '../route.js';

/** POST /v1/estimate: a chat request whose messages may be left out. */
const EstimateRequestSchema = ChatCompletionRequestSchema.extend({
  messages: ChatCompletionRequestSchema.shape.messages.optional().transform((messages) => messages ?? []),
});

/** The `modality` that picks the estimator: absent or `chat` prices a chat request. */
const EstimateModalitySchema = z.looseObject({ modality: z.enum(['chat', ...MEDIA_MODALITIES]).optional() });

const round2 = (seconds: number) => Math.round(seconds * 100) / 100;

/** The public tariff and the cost/time estimate (no backend call, no balance needed). */
export function pricingRoutes({ chat, media, audio }: AppDeps): RouteDef[] {
  return [
    { method: 'GET', path: '/v1/pricing', auth: 'public', handler: () => json(tariff(audio.rates)) },
    {
      method: 'POST',
      path: '/v1/estimate',
      auth: 'public',
      async handler(ctx) {
        const raw = await ctx.json(EstimateModalitySchema);
        if (raw.modality !== undefined && raw.modality !== 'chat') return json(media.estimate(raw.modality, raw));
        const request = parseOrThrow(EstimateRequestSchema, raw);
        const model = requireModel(request.model);
        const promptTokens = countPromptTokens(request.messages);
        const plan = planChat(request, promptTokens, model.max_output_tokens);
        const best = { promptTokens: promptTokens * request.n, completionTokens: request.n };
        const { ttftMs, tokensPerSecond } = chat.latency;
        const seconds = (tokens: number) => (tokensPerSecond > 0 ? tokens / tokensPerSecond : 0);
        const calls = plan.passes.length;
        const estimate: EstimateObject = {
          object: 'estimate',
          model: model.id,
          model_version: MODEL_VERSION,
          pricing_version: PRICING_VERSION,
          depth: plan.depth,
          passes: plan.passes,
          prompt_tokens: promptTokens,
          processed_tokens: {
            input: { min: best.promptTokens, max: plan.worstCase.promptTokens },
            output: { min: best.completionTokens, max: plan.worstCase.completionTokens },
          },
          cost_usd: { min: microsToUsd(chatPriceMicros(best)), max: microsToUsd(chatPriceMicros(plan.worstCase)) },
          time_seconds: {
            min: round2(ttftMs / 1000 + seconds(1)),
            max: round2((calls * ttftMs) / 1000 + seconds(plan.worstCase.completionTokens / request.n)),
          },
          hold_usd: microsToUsd(chatPriceMicros(plan.worstCase)),
        };
        return json(estimate);
      },
    },
  ];
}
