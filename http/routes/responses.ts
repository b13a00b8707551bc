import type { ItemStatus, ResponseEmitter, ResponseEventType } from '../../actors/responses/response-assembler.js';
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
  type ResponseStreamEvent,
} from '../../protocols/responses.js';
import { sseMessageAdded, sseMessageDone, sseTextDeltaTemplate } from '../../protocols/response-sse.js';
import { sseNamed, sseResponseEvent } from '../../protocols/sse.js';
import { fieldError } from '../../protocols/validation.js';
import type { AppDeps } from '../app-deps.js';
import { accountOf, encodedJson, json, type RequestContext, type RouteDef } from '../route.js';
import { SseWriter } from '../sse-writer.js';

/** Writes response events as named SSE events; the stream opens with the first one. */
class SseResponseEmitter implements ResponseEmitter {
  private opened = false;
  private lastSeq = -1;

  constructor(
    private readonly writer: SseWriter,
    private readonly responseId: string | null,
  ) {}

  get isOpen(): boolean {
    return this.opened;
  }

  /** Opens the stream (status and headers leave with the first events). */
  private openWith(responseId: string | null): void {
    if (this.opened) return;
    this.opened = true;
    const id = this.responseId ?? responseId;
    this.writer.open(id ? { 'x-response-id': id } : {});
  }

  emit(event: ResponseStreamEvent, responseJson?: string): void {
    this.openWith('response' in event ? event.response.id : null);
    this.lastSeq = event.sequence_number;
    if (!('response' in event)) {
      this.writer.push(sseNamed(event.type, event));
      return;
    }
    // A failed run's final event: the only one carrying the response that comes as an object.
    const json = responseJson ?? JSON.stringify(event.response);
    this.writer.push(sseResponseEvent(event.type, json, event.sequence_number));
  }

  responseEvent(type: ResponseEventType, responseId: string, responseJson: string, sequenceNumber: number): void {
    this.openWith(responseId);
    this.lastSeq = sequenceNumber;
    this.writer.push(sseResponseEvent(type, responseJson, sequenceNumber));
  }

  messageAdded(itemId: string, outputIndex: number, sequenceNumber: number): void {
    this.lastSeq = sequenceNumber + 1;
    this.writer.push(sseMessageAdded(itemId, outputIndex, sequenceNumber));
  }

  messageDone(itemId: string, outputIndex: number, status: ItemStatus, text: string, sequenceNumber: number): void {
    this.lastSeq = sequenceNumber + 2;
    this.writer.push(sseMessageDone(itemId, outputIndex, status, text, sequenceNumber));
  }

  /** The text deltas of one item: its event cut where the delta goes, made once; the sequence number ends each. */
  private deltas: { itemId: string; outputIndex: number; head: string; tail: string } | null = null;

  textDelta(itemId: string, outputIndex: number, delta: string, sequenceNumber: number): void {
    let template = this.deltas;
    if (template?.itemId !== itemId || template.outputIndex !== outputIndex)
      template = this.deltas = { itemId, outputIndex, ...sseTextDeltaTemplate(itemId, outputIndex) };
    this.lastSeq = sequenceNumber;
    this.writer.push(`${template.head}${JSON.stringify(delta)}${template.tail}${sequenceNumber}}\n\n`);
  }

  holdUntilEnd(): void {
    this.writer.holdUntilEnd();
  }

  /** The `error` event that ends a stream a failure interrupted outside the run (the run itself ends with `response.failed`). */
  fail(err: ApiError): void {
    this.emit({
      type: 'error',
      sequence_number: this.lastSeq + 1,
      code: err.code,
      message: err.message,
      param: err.param,
    });
  }

  ready(): Promise<void> | null {
    return this.writer.ready();
  }

  end(): void {
    this.writer.end();
  }
}

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
