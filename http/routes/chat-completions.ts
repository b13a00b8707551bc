import { svcOfResult } from '../../actors/chat/result-svc.js';
import { z } from 'zod';
import type {
  CancelTaken,
  ChatCall,
  ChatResult,
  CompletionStatus,
  LiveInputTaken,
} from '../../actors/chat/chat-service.js';
import { ChatCompletionRequestSchema } from '../../protocols/chat.js';
import {
  CancelRequestSchema,
  CancelResultSchema,
  LiveInputAckSchema,
  LiveInputRequestSchema,
  LiveInputStatusSchema,
  SessionRunAckSchema,
  type CancelResult,
  type LiveInputAck,
  type LiveInputStatus,
  type SessionRunAck,
} from '../../protocols/chat-live.js';
import {
  ChatCompletionChunkSchema,
  ChatCompletionSchema,
  StreamErrorEventSchema,
  completionObject,
} from '../../protocols/chat-response.js';
import { microsToUsd } from '../../protocols/money.js';
import type { AppDeps } from '../app-deps.js';
import { relayStream } from '../chat/relay-stream.js';
import { StreamRelay } from '../chat/stream-relay.js';
import { accountOf, json, type RequestContext, type RouteDef } from '../route.js';
import { SseWriter } from '../sse-writer.js';
import { requireModel, requireVariant } from '../../protocols/models.js';

// ---- Views: the feature's results on the wire ----

function completionHeaders(result: ChatResult): Record<string, string> {
  return { 'x-svc-price-usd': microsToUsd(result.outcome.priceMicros).toFixed(6), 'x-completion-id': result.head.id };
}

const sessionRunAck = (taken: { completionId: string; sessionId: string }): SessionRunAck => ({
  object: 'chat.completion.session_run',
  completion_id: taken.completionId,
  session_id: taken.sessionId,
  accepted: true,
});

const liveInputAck = (taken: LiveInputTaken): LiveInputAck | SessionRunAck =>
  taken.kind === 'session_run'
    ? sessionRunAck(taken)
    : {
        object: 'chat.completion.live_input',
        completion_id: taken.completionId,
        accepted: true,
        seq: taken.seq,
        state: taken.state,
      };

const cancelAck = (taken: CancelTaken): CancelResult | SessionRunAck =>
  taken.kind === 'session_run'
    ? sessionRunAck(taken)
    : {
        object: 'chat.completion.cancel',
        completion_id: taken.completionId,
        cancelled: taken.cancelled,
        state: taken.state,
      };

function statusView(status: CompletionStatus): LiveInputStatus {
  return {
    object: 'chat.completion.live_input_status',
    completion_id: status.completionId,
    state: status.state,
    active: status.active,
    phase: status.phase,
    inputs: status.inputs.map((input) => ({
      seq: input.seq,
      source: input.source,
      modality: input.modality,
      question_id: input.questionId,
      used_in: input.usedIn,
      received_at: Math.floor(input.receivedAt / 1000),
    })),
    pending: status.pending,
  };
}

/** Chat completions: the main route, plus live input, status and cancel of a running completion by its id. */
export function chatCompletionRoutes({ completions }: AppDeps): RouteDef[] {
  /** The call a request makes: the validated body and model, the caller, and the request's lifetime. */
  const callOf = async (ctx: RequestContext): Promise<ChatCall> => {
    const request = await ctx.json(ChatCompletionRequestSchema);
    const model = requireModel(request.model);
    requireVariant(request.target_variant_id, model);
    return {
      accountId: accountOf(ctx.principal).id,
      tokenId: ctx.principal.token?.id ?? null,
      requestId: ctx.ex.requestId,
      request,
      model,
      signal: ctx.ex.clientGone,
    };
  };

  /** Streams a completion as SSE; a failure after the stream opened ends it with an error event. */
  const stream = async (ctx: RequestContext, call: ChatCall): Promise<undefined> => {
    const options = call.request.stream_options;
    const open = (head: ChatResult['head']) =>
      new StreamRelay(new SseWriter(ctx.ex), head, {
        n: call.request.n,
        progress: options?.include_progress_text === true,
        includeUsage: options?.include_usage === true,
      });
    return relayStream(completions, call, ctx.ex.requestId, open, (relay, result) =>
      relay.finish(result.outcome, svcOfResult(result)),
    );
  };

  return [
    {
      method: 'POST',
      path: '/v1/chat/completions',
      auth: 'token',
      schema: {
        summary: 'Create a chat completion (SSE when stream is true)',
        body: ChatCompletionRequestSchema,
        response: ChatCompletionSchema,
        events: z.union([ChatCompletionChunkSchema, StreamErrorEventSchema]),
      },
      async handler(ctx) {
        const call = await callOf(ctx);
        if (call.request.stream) return stream(ctx, call);
        const result = await completions.complete(call);
        return json(
          completionObject(result.head, result.outcome.choices, result.outcome.usage, svcOfResult(result)),
          200,
          completionHeaders(result),
        );
      },
    },
    {
      method: 'POST',
      path: '/v1/chat/completions/:completion_id/live-input',
      auth: 'token',
      schema: { body: LiveInputRequestSchema, response: z.union([LiveInputAckSchema, SessionRunAckSchema]) },
      async handler(ctx) {
        const body = await ctx.json(LiveInputRequestSchema);
        const input = {
          content: body.content,
          questionId: body.question_id ?? null,
          source: body.source,
          modality: body.modality,
        };
        return json(
          liveInputAck(await completions.liveInput(accountOf(ctx.principal).id, ctx.params.completion_id!, input)),
        );
      },
    },
    {
      method: 'GET',
      path: '/v1/chat/completions/:completion_id/live-input',
      auth: 'token',
      schema: { response: LiveInputStatusSchema },
      handler: (ctx) => json(statusView(completions.status(accountOf(ctx.principal).id, ctx.params.completion_id!))),
    },
    {
      method: 'POST',
      path: '/v1/chat/completions/:completion_id/cancel',
      auth: 'token',
      schema: {
        body: CancelRequestSchema,
        bodyOptional: true,
        response: z.union([CancelResultSchema, SessionRunAckSchema]),
      },
      async handler(ctx) {
        const body = await ctx.optionalJson(CancelRequestSchema);
        return json(
          cancelAck(
            await completions.cancel(accountOf(ctx.principal).id, ctx.params.completion_id!, body?.reason ?? null),
          ),
        );
      },
    },
  ];
}
