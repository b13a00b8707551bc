import { assign, emit, enqueueActions, fromCallback, fromPromise, setup } from 'xstate';
import {
  rejection,
  type CallEmitted,
  type CallItem,
  type CallMessage,
  type CancelReason,
  type CloseReason,
} from './call-events.js';
import type {
  CallContext,
  CallEvent,
  CallInput,
  RejectionCode,
  RespondInput,
  SettleCallInput,
  TopUpInput,
  TranscribeInput,
  TranscriptionResult,
  TurnJob,
} from './call-context.js';
import { applySessionChange } from './call-session.js';
import { goodbyeLine } from './farewell.js';
import {
  allocate,
  cancelled,
  clientEventIdOf,
  planLine,
  planModelResponse,
  recordItem,
  refusalMessage,
  transcriptionEvents,
  usageAfter,
} from './turn-plan.js';
import { MAX_ITEMS, withItem } from './call-conversation.js';
import { deleteEdit, retrieveEdit, truncated, truncateEdit } from './item-edits.js';

import { callGuards } from './call-guards.js';

/**
 * The call machine's vocabulary (see call-machine.ts for its chart): its types, the effects it
 * invokes (provided by CallEffects), its guards (call-guards.ts) and its actions, each a step of
 * the call's state computed by the pure planners (turn-plan, call-conversation, item-edits) and
 * the domain events it emits.
 */
export const callSetup = setup({
  types: {
    context: {} as CallContext,
    events: {} as CallEvent,
    input: {} as CallInput,
    emitted: {} as CallEmitted,
  },
  actors: {
    transcribe: fromPromise<TranscriptionResult[], TranscribeInput>(() =>
      Promise.reject(new Error('transcribe must be provided')),
    ),
    respond: fromCallback<{ type: 'CANCEL' }, RespondInput>(() => {
      throw new Error('respond must be provided');
    }),
    topUp: fromPromise<{ holdMicros: number }, TopUpInput>(() => Promise.reject(new Error('topUp must be provided'))),
    settle: fromPromise<{ micros: number; entryId: string | null }, SettleCallInput>(() =>
      Promise.reject(new Error('settle must be provided')),
    ),
  },
  guards: callGuards,
  actions: {
    touch: assign(({ context, event }) => ({ updatedAt: 'at' in event ? event.at : context.updatedAt })),
    reject: emit(({ event, context }, params: { code: RejectionCode; param?: string }) =>
      rejection(params.code, refusalMessage(params.code, context), {
        param: params.param,
        clientEventId: clientEventIdOf(event),
      }),
    ),
    applySession: enqueueActions(({ enqueue, context, event }) => {
      if (event.type !== 'SESSION_UPDATE') return;
      const session = applySessionChange(context.session, event.change);
      enqueue.assign({ session });
      enqueue.emit({ type: 'sessionUpdated', callId: context.id, session });
    }),
    // A committed turn is queued, or taken at once when the call is idle (`start`).
    commitAudio: enqueueActions(({ enqueue, context, event }, params: { start: boolean }) => {
      if (event.type !== 'SPEECH_STOPPED' && event.type !== 'AUDIO_COMMITTED') return;
      const { itemId } = event;
      const previousItemId = context.lastItemId;
      enqueue.emit({
        type: 'audioCommitted',
        itemId,
        previousItemId,
        audioEndMs: event.type === 'SPEECH_STOPPED' ? event.audioEndMs : null,
      });
      const createResponse = context.session.turnDetection?.createResponse;
      const answer = event.type === 'SPEECH_STOPPED' ? (createResponse ?? true) : (createResponse ?? false);
      const job: TurnJob = {
        kind: 'audio',
        itemId,
        previousItemId,
        audioKey: event.audioKey,
        audioMs: event.audioMs,
        answer,
      };
      const work = params.start
        ? { turn: { job, itemId, text: null, answer, farewell: null } }
        : { queue: [...context.queue, job] };
      enqueue.assign({ lastItemId: itemId, updatedAt: event.at, ...work });
    }),
    enqueueItem: assign(({ context, event }) =>
      event.type === 'ITEM_CREATE'
        ? {
            queue: [
              ...context.queue,
              {
                kind: 'item',
                draft: event.item,
                clientEventId: event.clientEventId,
                previousItemId: event.previousItemId,
              } satisfies TurnJob,
            ],
          }
        : {},
    ),
    enqueueResponse: assign(({ context, event }) =>
      event.type === 'RESPONSE_CREATE'
        ? {
            queue: [
              ...context.queue,
              { kind: 'response', request: event.request, clientEventId: event.clientEventId } satisfies TurnJob,
            ],
          }
        : {},
    ),
    takeJob: assign(({ context }) => {
      const [job, ...queue] = context.queue;
      if (!job) return {};
      if (job.kind === 'audio')
        return { queue, turn: { job, itemId: job.itemId, text: null, answer: job.answer, farewell: null } };
      if (job.kind === 'response')
        return { queue, turn: { job, itemId: '', text: null, answer: false, farewell: null } };
      if (job.draft.id !== null)
        return { queue, turn: { job, itemId: job.draft.id, text: null, answer: false, farewell: null } };
      const [itemId, idCount] = allocate(context, 'item');
      return { queue, idCount, turn: { job, itemId, text: null, answer: false, farewell: null } };
    }),
    recordTypedItem: enqueueActions(({ enqueue, context }) => {
      const step = recordItem(context, []);
      enqueue.assign(step.patch);
      for (const event of step.emitted) enqueue.emit(event);
    }),
    cancelResponse: enqueueActions(({ enqueue, context }, params: { reason: CancelReason }) => {
      const cut = cancelled(context, params.reason);
      if (!cut) return;
      enqueue.assign({ response: cut });
      enqueue.sendTo('respond', { type: 'CANCEL' });
    }),
    // Conversation editing: truncate, delete, retrieve. A refusal is an emitted rejection.
    editItem: enqueueActions(({ enqueue, context, event }) => {
      const { items } = context;
      const edit =
        event.type === 'ITEM_TRUNCATE'
          ? truncateEdit(items, event)
          : event.type === 'ITEM_DELETE'
            ? deleteEdit(items, event.itemId, event.clientEventId)
            : event.type === 'ITEM_RETRIEVE'
              ? retrieveEdit(items, event.itemId, event.clientEventId)
              : null;
      if (!edit) return;
      if (edit.items) enqueue.assign({ items: edit.items });
      enqueue.emit(edit.emitted);
    }),
    requestClose: assign(({ context }, params: { reason: CloseReason }) => ({
      closeReason: context.closeReason ?? params.reason,
      deadlines: {},
    })),
    exhaust: enqueueActions(({ enqueue, context }) => {
      enqueue.emit(
        rejection(
          'insufficient_balance',
          'The balance cannot cover the call any longer; it ends now. Top up the account to continue.',
        ),
      );
      const cut = cancelled(context, 'insufficient_balance');
      if (cut) {
        enqueue.assign({ response: cut });
        enqueue.sendTo('respond', { type: 'CANCEL' });
      }
      enqueue.assign({ closeReason: context.closeReason ?? 'insufficient_balance', deadlines: {} });
    }),
    beginEnding: enqueueActions(({ enqueue, context }) => {
      const verdict = context.turn?.farewell;
      if (!verdict) return;
      const reason = verdict.reason ?? 'farewell';
      const [id, afterResponse] = allocate(context, 'resp');
      const [itemId, idCount] = allocate({ ...context, idCount: afterResponse }, 'item');
      enqueue.assign({
        ending: { reason, language: verdict.language, ready: false },
        idCount,
        response: planLine({
          session: context.session,
          usage: context.usage,
          line: goodbyeLine(verdict.language),
          language: verdict.language,
          id,
          itemId,
        }),
      });
      enqueue.emit({ type: 'ending', reason, language: verdict.language });
    }),
    planAnswer: assign(({ context }) => {
      const request =
        context.turn?.job.kind === 'response'
          ? context.turn.job.request
          : { outputModalities: null, instructions: null, maxOutputTokens: null, metadata: null, tools: null };
      const [id, afterResponse] = allocate(context, 'resp');
      const [itemId, idCount] = allocate({ ...context, idCount: afterResponse }, 'item');
      return {
        idCount,
        response: planModelResponse({
          session: context.session,
          items: context.items,
          usage: context.usage,
          request,
          id,
          itemId,
        }),
      };
    }),
    startResponse: enqueueActions(({ enqueue, context }) => {
      if (!context.response) return;
      enqueue.assign({ response: { ...context.response, stage: 'streaming' } });
      enqueue.emit({
        type: 'responseStarted',
        responseId: context.response.id,
        itemId: context.response.itemId,
        modalities: context.response.modalities,
      });
    }),
    finishResponse: enqueueActions(({ enqueue, context, event }) => {
      if (event.type !== 'RESPONSE_FINISHED' || !context.response) return;
      const response = context.response;
      const spoken: CallMessage = {
        id: response.itemId,
        role: 'assistant',
        text: event.text,
        audioMs: event.usage.audioOutMs,
      };
      // Barge-in: the caller heard only what was played before speaking; the conversation keeps that.
      const cutAt =
        event.status === 'cancelled' && response.cancelReason === 'turn_detected' && event.playedMs != null
          ? Math.min(event.playedMs, spoken.audioMs)
          : null;
      const item: CallItem | null = event.text ? (cutAt === null ? spoken : truncated(spoken, cutAt)) : null;
      const calls = event.toolCalls.map((call): CallItem => ({
        type: 'function_call',
        id: call.itemId,
        callId: call.callId,
        name: call.name,
        arguments: call.arguments,
      }));
      enqueue.assign({
        response: { ...response, stage: 'finished' },
        items: [...withItem(context.items, item), ...calls].slice(-MAX_ITEMS),
        usage: usageAfter(context.usage, event.usage),
        updatedAt: event.at,
      });
      const cancelReason = event.status === 'cancelled' ? (response.cancelReason ?? 'client_cancelled') : null;
      enqueue.emit({
        type: 'responseDone',
        responseId: response.id,
        itemId: response.itemId,
        modalities: response.modalities,
        status: event.status,
        cancelReason,
        failure: event.failure,
        text: event.text,
        toolCalls: event.toolCalls,
        usage: event.usage,
      });
      if (item && cutAt !== null && cutAt < spoken.audioMs)
        enqueue.emit({ type: 'itemTruncated', itemId: item.id, contentIndex: 0, audioEndMs: cutAt });
      if (event.status === 'failed')
        enqueue.emit(
          rejection('upstream_unavailable', `The model backend failed: ${event.failure ?? 'unknown error'}`),
        );
    }),
    becomeEndReady: enqueueActions(({ enqueue, context }) => {
      if (!context.ending) return;
      enqueue.assign({
        ending: { ...context.ending, ready: true },
        deadlines: { endGrace: context.updatedAt + context.endGraceMs },
      });
      enqueue.emit({ type: 'endReady', graceMs: context.endGraceMs });
    }),
    endTurn: assign({ turn: () => null, response: () => null }),
    setHold: enqueueActions(({ enqueue, context }, params: { holdMicros: number }) => {
      if (params.holdMicros === context.holdMicros) return;
      enqueue.assign({ holdMicros: params.holdMicros });
      enqueue.emit({ type: 'holdRaised', holdMicros: params.holdMicros });
    }),
    announceSession: emit(
      ({ context }) => ({ type: 'sessionCreated', callId: context.id, session: context.session }) as const,
    ),
    announceClosing: emit(({ context }) => ({ type: 'closing', reason: context.closeReason }) as const),
    announceClosed: emit(
      ({ context }) =>
        ({
          type: 'closed',
          reason: context.closeReason,
          usage: context.usage,
          priceMicros: context.charge?.micros ?? 0,
        }) as const,
    ),
    rejectModel: emit(({ event }) =>
      rejection(
        'model_not_found',
        `The model '${event.type === 'SESSION_UPDATE' ? (event.change.model ?? '') : ''}' does not exist. Use pro-1 or a dated snapshot listed by GET /v1/models.`,
        {
          param: 'session.model',
          clientEventId: clientEventIdOf(event),
        },
      ),
    ),
    // The done and error events of the effects are not in the machine's event union: what the
    // actions below read of them arrives as params (effectOutput, effectError), typed from `actors`.
    reportTranscriptions: enqueueActions(({ enqueue, context }, results: TranscriptionResult[]) => {
      for (const emitted of transcriptionEvents(context, results)) enqueue.emit(emitted);
    }),
    recordTranscribedTurn: enqueueActions(({ enqueue, context }, results: TranscriptionResult[]) => {
      const step = recordItem(context, results);
      enqueue.assign(step.patch);
      for (const emitted of step.emitted) enqueue.emit(emitted);
    }),
    recordCharge: assign((_, charge: { micros: number; entryId: string | null }) => ({ charge })),
    recordSettleFailure: enqueueActions(({ enqueue }, error: unknown) => {
      enqueue.assign({ charge: null });
      enqueue.emit({ type: 'settleFailed', message: error instanceof Error ? error.message : 'settle failed' });
    }),
  },
});
