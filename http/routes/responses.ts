import { inputItemPage } from '../../actors/responses/input-item-page.js';
import type { ResponseCall } from '../../actors/responses/response-service.js';
import { ApiError } from '../../protocols/errors.js';
import { microsToUsd } from '../../protocols/money.js';
import { requireModel } from '../../protocols/models.js';
import {
  InputItemListSchema,
  InputItemsQuerySchema,
  ResponseCreateRequestSchema,
  ResponseDeletedSchema,
  ResponseObjectSchema,
  ResponseStreamEventSchema,
  RetrieveQuerySchema,
} from '../../protocols/responses.js';
import { sseNamed } from '../../protocols/sse.js';
import { fieldError } from '../../protocols/validation.js';
import type { AppDeps } from '../app-deps.js';
import { accountOf, encodedJson, json, type RequestContext, type RouteDef } from '../route.js';
import { SseResponseEmitter } from '../response-sse-emitter.js';
import { SseWriter } from '../sse-writer.js';

/** The Responses API: create (JSON or SSE), retrieve (or replay its events), delete, and list input items. */
export function responseRoutes({ responses, backgroundResponses }: AppDeps): RouteDef[] {
  const callOf = async (ctx: RequestContext): Promise<ResponseCall> => {
    const request = await ctx.json(ResponseCreateRequestSchema);
    const model = requireModel(request.model);
    if (request.background && !request.store)
      throw fieldError(['body', 'store'], 'a background response is stored: store must not be false');
    return {
      accountId: accountOf(ctx.principal).id,
      tokenId: ctx.principal.token?.id ?? null,
      requestId: ctx.ex.requestId,
      request,
      model,
      signal: ctx.ex.clientGone,
    };
  };

  /** Streams a response; a failure before the first event is a plain HTTP error, after it an `error` event. */
  const stream = async (ctx: RequestContext, call: ResponseCall): Promise<undefined> => {
    const emitter = new SseResponseEmitter(new SseWriter(ctx.ex), null);
    try {
      await responses.create(call, emitter);
    } catch (err) {
      if (!(err instanceof ApiError) || !emitter.isOpen) throw err;
      emitter.fail(err);
    }
    emitter.end();
    return undefined;
  };

  /** Streams a background response's events after `after` as they come, until it ends or the client leaves. */
  const follow = async (ctx: RequestContext, id: string, after: number): Promise<undefined> => {
    const writer = new SseWriter(ctx.ex);
    writer.open({ 'x-response-id': id });
    await new Promise<void>((resolve) => {
      const stop = backgroundResponses.follow(id, after, {
        emit: (event) => writer.push(sseNamed(event.type, event)),
        end: resolve,
      });
      if (stop === false) {
        // Not running here (it ended between the read and now): the stored events.
        const events = responses.get(accountOf(ctx.principal).id, id).events ?? [];
        for (const event of events) if (event.sequence_number > after) writer.push(sseNamed(event.type, event));
        resolve();
        return;
      }
      ctx.ex.clientGone.addEventListener('abort', () => {
        stop();
        resolve();
      });
    });
    writer.end();
    return undefined;
  };

  return [
    {
      method: 'POST',
      path: '/v1/responses',
      auth: 'token',
      schema: {
        summary: 'Create a model response (the OpenAI Responses API; SSE when stream is true)',
        body: ResponseCreateRequestSchema,
        response: ResponseObjectSchema,
        events: ResponseStreamEventSchema,
      },
      async handler(ctx) {
        const call = await callOf(ctx);
        if (call.request.background) {
          // The run belongs to its actor, not to this request: leaving does not cancel it.
          const queued = await backgroundResponses.start({ ...call, signal: new AbortController().signal });
          if (!call.request.stream) return json(queued);
          return follow(ctx, queued.id, -1);
        }
        if (call.request.stream) return stream(ctx, call);
        const { response, priceMicros, json: encoded } = await responses.create(call, null);
        return encodedJson(response, encoded, { 'x-svc-price-usd': microsToUsd(priceMicros).toFixed(6) });
      },
    },
    {
      method: 'GET',
      path: '/v1/responses/:response_id',
      auth: 'token',
      schema: {
        summary: 'Retrieve a stored response, or replay its events (stream=true, after starting_after)',
        query: RetrieveQuerySchema,
        response: ResponseObjectSchema,
        events: ResponseStreamEventSchema,
      },
      handler(ctx) {
        const query = ctx.query(RetrieveQuerySchema);
        const record = responses.get(accountOf(ctx.principal).id, ctx.params.response_id!);
        if (query.stream !== 'true') return json(record.response);
        if (!record.events && record.response.status !== 'queued' && record.response.status !== 'in_progress')
          throw new ApiError('conflict', 'Only background responses keep their events to stream again.', {
            param: 'stream',
          });
        const after = query.starting_after ?? -1;
        if (record.response.status === 'queued' || record.response.status === 'in_progress')
          return follow(ctx, record.response.id, after);
        const writer = new SseWriter(ctx.ex);
        writer.open({ 'x-response-id': record.response.id });
        for (const event of record.events ?? [])
          if (event.sequence_number > after) writer.push(sseNamed(event.type, event));
        writer.end();
        return undefined;
      },
    },
    {
      method: 'POST',
      path: '/v1/responses/:response_id/cancel',
      auth: 'token',
      schema: { summary: 'Cancel a background response', response: ResponseObjectSchema },
      async handler(ctx) {
        return json(await backgroundResponses.cancel(accountOf(ctx.principal).id, ctx.params.response_id!));
      },
    },
    {
      method: 'DELETE',
      path: '/v1/responses/:response_id',
      auth: 'token',
      schema: { summary: 'Delete a stored response', response: ResponseDeletedSchema },
      async handler(ctx) {
        const id = ctx.params.response_id!;
        await responses.delete(accountOf(ctx.principal).id, id);
        return json({ id, object: 'response.deleted', deleted: true });
      },
    },
    {
      method: 'GET',
      path: '/v1/responses/:response_id/input_items',
      auth: 'token',
      schema: {
        summary: "A page of a stored response's input items",
        query: InputItemsQuerySchema,
        response: InputItemListSchema,
      },
      handler(ctx) {
        const query = ctx.query(InputItemsQuerySchema);
        const record = responses.get(accountOf(ctx.principal).id, ctx.params.response_id!);
        return json(inputItemPage(record.inputItems, query));
      },
    },
  ];
}
