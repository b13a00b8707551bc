import type { ChatBackend } from '../../backends/chat-backend.js';
import { ChatCompletionRequestSchema } from '../../protocols/chat.js';
import { microsToUsd } from '../../protocols/money.js';
import { MODEL_VERSION, requireModel } from '../../protocols/models.js';
import { chatPriceMicros, PRICING_VERSION, type EstimateObject } from '../../protocols/pricing.js';
import { countPromptTokens } from '../../protocols/tokens.js';
import { parseOrThrow } from '../../protocols/validation.js';
import { planChat } from './chat-plan.js';

/** A chat request to estimate: the chat request whose messages may be left out. */
export const ChatEstimateRequestSchema = ChatCompletionRequestSchema.extend({
  messages: ChatCompletionRequestSchema.shape.messages.optional().transform((messages) => messages ?? []),
});

const round2 = (seconds: number) => Math.round(seconds * 100) / 100;

/**
 * What a chat request would process, cost and take, and what it would hold, without calling a
 * backend or needing a balance (POST /v1/estimate and the MCP `estimate` tool). Throws 422 for a
 * body that is not a chat request, 404 for an unknown model.
 */
export function estimateChat(body: unknown, latency: ChatBackend['latency']): EstimateObject {
  const request = parseOrThrow(ChatEstimateRequestSchema, body);
  const model = requireModel(request.model);
  const promptTokens = countPromptTokens(request.messages);
  const plan = planChat(request, promptTokens, model.max_output_tokens);
  const best = { promptTokens: promptTokens * request.n, completionTokens: request.n };
  const { ttftMs, tokensPerSecond } = latency;
  const seconds = (tokens: number) => (tokensPerSecond > 0 ? tokens / tokensPerSecond : 0);
  const calls = plan.passes.length;
  return {
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
}
