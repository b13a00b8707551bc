import { planChat } from '../../actors/chat-plan.js';
import type { ChatBackend, ChatBackendRequest } from '../../backends/chat-backend.js';
import { RetryableError, TerminalError } from '../../backends/errors.js';
import { countPromptTokens, countTokens } from '../../backends/tokens.js';
import { ChatCompletionRequestSchema, type ChatCompletionRequest } from '../../protocols/chat.js';
import { ApiError } from '../../protocols/errors.js';
import { microsToUsd } from '../../protocols/money.js';
import { MODEL_VERSION } from '../../protocols/models.js';
import { chatPriceMicros, costBlock, svcBlock, type TokenUsage } from '../../protocols/pricing.js';
import { randomBase62 } from '../../runtime/ids.js';
import type { AppDeps } from '../app.js';
import { accountOf, json, type RouteDef } from '../route.js';
import { requireModel } from './models.js';

interface ChoiceResult {
  text: string;
  finishReason: 'stop' | 'length';
  usage: TokenUsage;
}

/** Maps a backend failure to the API's explicit upstream errors; never a degraded answer. */
export function upstreamError(err: unknown): ApiError {
  if (err instanceof RetryableError || err instanceof TerminalError) {
    const headers: Record<string, string> = {};
    if (err instanceof RetryableError && err.retryAfterMs !== null) headers['retry-after'] = String(Math.ceil(err.retryAfterMs / 1000));
    return new ApiError(err.kind, `Upstream model provider failed: ${err.message}`, { headers, cause: err });
  }
  return new ApiError('upstream_error', 'Upstream model provider failed unexpectedly.', { cause: err });
}

async function runChoice(backend: ChatBackend, request: ChatBackendRequest): Promise<ChoiceResult> {
  let text = '';
  try {
    for await (const event of backend.stream(request)) {
      if (event.type === 'delta') text += event.text;
      else return { text, finishReason: event.finishReason, usage: event.usage };
    }
  } catch (err) {
    // The client left: what was produced so far was processed and is what gets charged.
    if (request.signal.aborted) return { text, finishReason: 'stop', usage: { promptTokens: countPromptTokens(request.messages), completionTokens: countTokens(text) } };
    throw err;
  }
  throw new RetryableError('backend stream ended without a final event', 'upstream_error');
}

function backendRequest(request: ChatCompletionRequest, maxTokens: number, signal: AbortSignal, choiceIndex: number): ChatBackendRequest {
  return {
    model: request.model,
    messages: request.messages,
    maxTokens,
    temperature: request.temperature ?? null,
    stop: request.stop == null ? [] : typeof request.stop === 'string' ? [request.stop] : request.stop,
    responseFormat: request.response_format?.type ?? 'text',
    metadata: request.metadata ?? null,
    signal,
    choiceIndex,
  };
}

/** POST /v1/chat/completions (non-streaming): hold the worst case, run, settle the exact charge. */
export function chatCompletionRoutes({ services, chat }: AppDeps): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/v1/chat/completions',
      auth: 'token',
      async handler(ctx) {
        const request = await ctx.json(ChatCompletionRequestSchema);
        const model = requireModel(request.model);
        if (request.stream) throw new ApiError('invalid_request', 'stream: true is not served yet; send stream: false.', { param: 'stream' });
        const account = accountOf(ctx.principal);
        const plan = planChat(request, countPromptTokens(request.messages), model.max_output_tokens);
        const hold = services.ledger.hold({ accountId: account.id, tokenId: ctx.principal.token?.id ?? null, amount: chatPriceMicros(plan.worstCase) });

        let results: ChoiceResult[];
        try {
          results = await Promise.all(Array.from({ length: request.n }, (_, i) => runChoice(chat, backendRequest(request, plan.maxTokens, ctx.ex.signal, i))));
        } catch (err) {
          services.ledger.release(hold);
          throw upstreamError(err);
        }
        const usage: TokenUsage = {
          promptTokens: results.reduce((sum, r) => sum + r.usage.promptTokens, 0),
          completionTokens: results.reduce((sum, r) => sum + r.usage.completionTokens, 0),
        };
        const price = chatPriceMicros(usage);
        await services.ledger.settle(hold, {
          charge: price,
          description: `chat completion (${plan.depth})`,
          requestId: ctx.ex.requestId,
          model: model.id,
          promptTokens: usage.promptTokens,
          completionTokens: usage.completionTokens,
        });
        return json(
          {
            id: `chatcmpl-${randomBase62(24)}`,
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: model.id,
            choices: results.map((r, index) => ({
              index,
              message: { role: 'assistant', content: r.text, refusal: null },
              logprobs: null,
              finish_reason: r.finishReason,
            })),
            usage: { prompt_tokens: usage.promptTokens, completion_tokens: usage.completionTokens, total_tokens: usage.promptTokens + usage.completionTokens },
            system_fingerprint: `fp_svc_${MODEL_VERSION}`,
            svc: svcBlock(price),
            cost: costBlock(usage),
          },
          200,
          { 'x-svc-price-usd': microsToUsd(price).toFixed(6) },
        );
      },
    },
  ];
}

