import type { ChatCall, ChatResult } from '../../actors/chat/chat-service.js';
import { messageIdOf, messageObject } from '../../actors/messages/message-view.js';
import { chatMessagesOf, chatRequestOf } from '../../actors/messages/messages-to-chat.js';
import { ApiError } from '../../protocols/errors.js';
import { anthropicErrorReply } from '../../protocols/messages-errors.js';
import {
  AnthropicErrorSchema,
  CountTokensRequestSchema,
  MessageObjectSchema,
  MessageTokensCountSchema,
  MessagesRequestSchema,
  MessagesStreamEventSchema,
} from '../../protocols/messages.js';
import { microsToUsd } from '../../protocols/money.js';
import { requireModel } from '../../protocols/models.js';
import { countPromptTokens } from '../../protocols/tokens.js';
import type { AppDeps } from '../app-deps.js';
import { relayStream } from '../chat/relay-stream.js';
import { MessagesRelay } from '../messages/messages-relay.js';
import { accountOf, json, type RequestContext, type RouteDef, type RouteDialect } from '../route.js';
import { SseWriter } from '../sse-writer.js';

/** Anthropic's edges: the token may come as `x-api-key`, errors in its envelope with our request id. */
const ANTHROPIC: RouteDialect = {
  authorization: (headers) =>
    headers.authorization ?? (headers['x-api-key'] !== undefined ? `Bearer ${headers['x-api-key']}` : undefined),
  errorReply: anthropicErrorReply,
};

/** Anthropic requires `anthropic-version`; we serve one format, so any dated version is taken. */
function requireVersion(ctx: RequestContext): void {
  const version = ctx.ex.headers['anthropic-version'];
  if (version === undefined)
    throw new ApiError('invalid_request', 'anthropic-version: header is required (for example 2023-06-01).', {
      param: 'anthropic-version',
    });
  if (!/^\d{4}-\d{2}-\d{2}$/.test(version))
    throw new ApiError('invalid_request', 'anthropic-version: expected a date such as 2023-06-01.', {
      param: 'anthropic-version',
    });
}

/** The Anthropic Messages API over the chat machinery: same plans, holds, billing and backends. */
export function messagesRoutes({ completions }: AppDeps): RouteDef[] {
  const callOf = async (ctx: RequestContext): Promise<ChatCall> => {
    requireVersion(ctx);
    const body = await ctx.json(MessagesRequestSchema);
    const model = requireModel(body.model);
    return {
      accountId: accountOf(ctx.principal).id,
      tokenId: ctx.principal.token?.id ?? null,
      requestId: ctx.ex.requestId,
      request: chatRequestOf(body),
      model,
      signal: ctx.ex.clientGone,
    };
  };

  /** Streams the message as Anthropic's events; a failure after the stream opened is an `error` event. */
  const stream = async (ctx: RequestContext, call: ChatCall): Promise<undefined> => {
    const open = (head: ChatResult['head']) =>
      new MessagesRelay(new SseWriter(ctx.ex), head, {
        messageId: messageIdOf(head.id),
        requestId: ctx.ex.requestId,
        promptTokens: () => countPromptTokens(call.request.messages),
      });
    return relayStream(completions, call, ctx.ex.requestId, open, (relay, result) => relay.finish(result));
  };

  return [
    {
      method: 'POST',
      path: '/v1/messages',
      auth: 'token',
      dialect: ANTHROPIC,
      schema: {
        summary: 'Create a message (Anthropic Messages API; SSE events when stream is true)',
        body: MessagesRequestSchema,
        response: MessageObjectSchema,
        events: MessagesStreamEventSchema,
        errors: AnthropicErrorSchema,
        security: ['apiToken', 'anthropicApiKey'],
        requiredHeaders: ['anthropic-version'],
      },
      async handler(ctx) {
        const call = await callOf(ctx);
        if (call.request.stream) return stream(ctx, call);
        const result = await completions.complete(call);
        return json(messageObject(result), 200, {
          'x-svc-price-usd': microsToUsd(result.outcome.priceMicros).toFixed(6),
          'x-completion-id': result.head.id,
          'request-id': ctx.ex.requestId,
        });
      },
    },
    {
      method: 'POST',
      path: '/v1/messages/count_tokens',
      auth: 'token',
      dialect: ANTHROPIC,
      schema: {
        summary: 'Count the input tokens a message would be billed (Anthropic Messages API)',
        body: CountTokensRequestSchema,
        response: MessageTokensCountSchema,
        errors: AnthropicErrorSchema,
        security: ['apiToken', 'anthropicApiKey'],
        requiredHeaders: ['anthropic-version'],
      },
      async handler(ctx) {
        requireVersion(ctx);
        const body = await ctx.json(CountTokensRequestSchema);
        requireModel(body.model);
        const inputTokens = await completions.inputTokens(
          accountOf(ctx.principal).id,
          chatMessagesOf(body),
          ctx.ex.signal,
        );
        return json({ input_tokens: inputTokens }, 200, { 'request-id': ctx.ex.requestId });
      },
    },
  ];
}
