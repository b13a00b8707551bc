import { assign, emit, enqueueActions, fromCallback, fromPromise, setup, type SnapshotFrom } from 'xstate';
import { findModel } from '../../protocols/models.js';
import { effectError, effectOutput } from '../effect-results.js';
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
  audioKeysOf,
  cancelled,
  clientEventIdOf,
  isStreaming,
  nextJob,
  planLine,
  planModelResponse,
  priceOf,
  recordItem,
  refusalMessage,
  respondInput,
  transcriptionEvents,
  usageAfter,
} from './turn-plan.js';
import { MAX_ITEMS, withItem } from './call-conversation.js';
import { deleteEdit, retrieveEdit, truncated, truncateEdit } from './item-edits.js';

/**
 * One realtime call, one per socket, and the only place its state lives: its jobs (turns to
 * transcribe and answer, items, responses) run one at a time in `live`'s states, the response in
 * flight and why it was cut, the ending (farewell, goodbye, end ready with its grace deadline), the
 * money held and the close. Audio frames never reach it: the call's line runs the VAD and reports
 * speech and committed turns; the effects (`transcribe`, `respond`, `topUp`, `settle`) are named
 * actors provided by `CallEffects`. Every decision a client sees is an emitted domain event in the
 * call's log (camelCase, micro-USD); the edge renders the wire. Deadlines (the end grace) are data
 * in `context.deadlines`, armed by the host on its clock.
 */
export const realtimeCallMachine = setup({
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
  guards: {
    sessionTypeLocked: ({ context, event }) =>
      event.type === 'SESSION_UPDATE' &&
      event.change.type !== undefined &&
      event.change.type !== context.session.type &&
      (isStreaming(context) || context.ending !== null),
    unknownModel: ({ event }) =>
      event.type === 'SESSION_UPDATE' && event.change.model !== undefined && !findModel(event.change.model),
    listening: ({ context }) => context.ending === null && context.closeReason === null,
    bargeIn: ({ context }) =>
      context.ending === null &&
      context.closeReason === null &&
      isStreaming(context) &&
      context.session.turnDetection?.interruptResponse === true,
    transcriptionSession: ({ context }) => context.session.type === 'transcription',
    callEnding: ({ context }) => context.ending !== null,
    responseInFlight: ({ context }) => isStreaming(context),
    cancellable: ({ context, event }) =>
      event.type === 'RESPONSE_CANCEL' &&
      isStreaming(context) &&
      (event.responseId === null || event.responseId === context.response?.id),
    readyToClose: ({ context }) => context.closeReason !== null && !isStreaming(context),
    endReady: ({ context }) => context.ending?.ready === true,
    isGraceTimer: ({ context, event }) =>
      event.type === 'TIMER' && event.name === 'endGrace' && context.ending?.ready === true,
    nextIsAudioTurn: ({ context }) => nextJob(context)?.kind === 'audio',
    nextIsItemToTranscribe: ({ context }) => {
      const job = nextJob(context);
      return (
        job?.kind === 'item' &&
        'content' in job.draft &&
        job.draft.content.some((part) => part.type === 'input_audio' && part.transcript === null)
      );
    },
    nextIsItem: ({ context }) => nextJob(context)?.kind === 'item',
    nextIsResponse: ({ context }) => nextJob(context)?.kind === 'response',
    closeRequested: ({ context }) => context.closeReason !== null,
    usageBeyondHold: ({ context }) => priceOf(context.usage) > context.holdMicros,
    turnEndsCall: ({ context }) => context.turn?.farewell != null && context.ending === null,
    turnWantsAnswer: ({ context }) =>
      context.turn?.answer === true && context.session.type === 'realtime' && context.ending === null,
    worstCovered: ({ context }) => (context.response?.worstMicros ?? 0) <= context.holdMicros,
    currentResponse: ({ context, event }) =>
      event.type === 'RESPONSE_FINISHED' && event.responseId === context.response?.id,
    wasGoodbye: ({ context }) => context.response?.line != null && context.ending !== null,
    transcriptionFailed: (_, results: TranscriptionResult[]) => results.some((result) => !result.ok),
  },
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
}).createMachine({
  id: 'realtime-call',
  context: ({ input }) => ({
    ...input,
    idCount: 0,
    items: [],
    lastItemId: null,
    usage: { audioInMs: 0, audioOutMs: 0, promptTokens: 0, completionTokens: 0 },
    queue: [],
    turn: null,
    response: null,
    ending: null,
    closeReason: null,
    charge: null,
    deadlines: {},
    updatedAt: input.at,
  }),
  initial: 'connecting',
  states: {
    connecting: {
      on: {
        OPEN: { target: 'live', actions: ['touch', 'announceSession'] },
        DISCONNECT: {
          target: 'closing',
          actions: ['touch', { type: 'requestClose', params: { reason: 'disconnected' } }],
        },
      },
    },
    live: {
      initial: 'idle',
      always: { guard: 'readyToClose', target: 'closing' },
      on: {
        SESSION_UPDATE: [
          {
            guard: 'sessionTypeLocked',
            actions: { type: 'reject', params: { code: 'session_type_locked', param: 'session.type' } },
          },
          { guard: 'unknownModel', actions: 'rejectModel' },
          { actions: ['touch', 'applySession'] },
        ],
        // Barge-in: the caller speaking over a response cuts it. The line sends this only when taken.
        SPEECH_STARTED: {
          guard: 'bargeIn',
          actions: ['touch', { type: 'cancelResponse', params: { reason: 'turn_detected' } }],
        },
        SPEECH_STOPPED: { guard: 'listening', actions: { type: 'commitAudio', params: { start: false } } },
        AUDIO_COMMITTED: { guard: 'listening', actions: { type: 'commitAudio', params: { start: false } } },
        ITEM_CREATE: { actions: ['touch', 'enqueueItem'] },
        RESPONSE_CREATE: [
          { guard: 'transcriptionSession', actions: { type: 'reject', params: { code: 'transcription_session' } } },
          { guard: 'callEnding', actions: { type: 'reject', params: { code: 'call_ending' } } },
          {
            guard: 'responseInFlight',
            actions: { type: 'reject', params: { code: 'conversation_already_has_active_response' } },
          },
          { actions: ['touch', 'enqueueResponse'] },
        ],
        ITEM_TRUNCATE: { actions: ['touch', 'editItem'] },
        ITEM_DELETE: { actions: ['touch', 'editItem'] },
        ITEM_RETRIEVE: { actions: 'editItem' },
        RESPONSE_CANCEL: [
          {
            guard: 'cancellable',
            actions: ['touch', { type: 'cancelResponse', params: { reason: 'client_cancelled' } }],
          },
          { actions: { type: 'reject', params: { code: 'response_cancel_not_active' } } },
        ],
        // After the goodbye, the client acknowledges once its queued audio has played, or the grace runs out.
        END_ACK: [
          { guard: 'endReady', actions: ['touch', { type: 'requestClose', params: { reason: 'end_ack' } }] },
          { actions: { type: 'reject', params: { code: 'end_ack_unexpected' } } },
        ],
        TIMER: { guard: 'isGraceTimer', actions: { type: 'requestClose', params: { reason: 'grace' } } },
        // A response cut by the disconnect still reports what it produced before the call settles.
        DISCONNECT: {
          actions: [
            'touch',
            { type: 'cancelResponse', params: { reason: 'disconnected' } },
            { type: 'requestClose', params: { reason: 'disconnected' } },
          ],
        },
      },
      // One job at a time, in arrival order: transcribe and answer a turn, add an item, respond.
      states: {
        idle: {
          always: [
            { guard: 'nextIsAudioTurn', target: 'transcribing', actions: 'takeJob' },
            { guard: 'nextIsItemToTranscribe', target: 'transcribing', actions: 'takeJob' },
            { guard: 'nextIsItem', target: 'afterTurn', actions: ['takeJob', 'recordTypedItem'] },
            { guard: 'nextIsResponse', target: 'responding', actions: ['takeJob', 'planAnswer'] },
          ],
          on: {
            // The common path, taken straight (the queue is empty when idle).
            SPEECH_STOPPED: {
              guard: 'listening',
              target: 'transcribing',
              actions: { type: 'commitAudio', params: { start: true } },
            },
            AUDIO_COMMITTED: {
              guard: 'listening',
              target: 'transcribing',
              actions: { type: 'commitAudio', params: { start: true } },
            },
          },
        },
        transcribing: {
          invoke: {
            id: 'transcribe',
            src: 'transcribe',
            input: ({ context }): TranscribeInput => ({
              callId: context.id,
              audioKeys: audioKeysOf(context.turn?.job),
              language: context.session.transcription?.language ?? null,
              prompt: context.session.transcription?.prompt ?? null,
            }),
            onDone: [
              {
                guard: { type: 'transcriptionFailed', params: effectOutput },
                target: 'idle',
                actions: [{ type: 'reportTranscriptions', params: effectOutput }, 'endTurn'],
              },
              { target: 'afterTurn', actions: { type: 'recordTranscribedTurn', params: effectOutput } },
            ],
            // The effect reports failures as results; a throw is a bug, and the turn is dropped.
            onError: { target: 'idle', actions: 'endTurn' },
          },
        },
        // A user turn is recorded: keep the hold ahead of the bill, then end the call, answer, or wait.
        afterTurn: {
          always: [
            { guard: 'closeRequested', target: 'idle', actions: 'endTurn' },
            { guard: 'usageBeyondHold', target: 'coveringTurn' },
            { guard: 'turnEndsCall', target: 'responding', actions: 'beginEnding' },
            { guard: 'turnWantsAnswer', target: 'responding', actions: 'planAnswer' },
            { target: 'idle', actions: 'endTurn' },
          ],
        },
        coveringTurn: {
          invoke: {
            id: 'topUp',
            src: 'topUp',
            input: ({ context }): TopUpInput => ({
              callId: context.id,
              accountId: context.accountId,
              tokenId: context.tokenId,
              neededMicros: priceOf(context.usage),
            }),
            onDone: {
              target: 'afterTurn',
              actions: { type: 'setHold', params: ({ event }) => ({ holdMicros: event.output.holdMicros }) },
            },
            onError: { target: 'idle', actions: ['exhaust', 'endTurn'] },
          },
        },
        // A response: its worst case held first, then run by the `respond` effect until it reports.
        responding: {
          always: [
            { guard: 'closeRequested', target: 'idle', actions: 'endTurn' },
            { guard: 'worstCovered', target: 'streaming', actions: 'startResponse' },
            { target: 'toppingUp' },
          ],
        },
        toppingUp: {
          invoke: {
            id: 'topUp',
            src: 'topUp',
            input: ({ context }): TopUpInput => ({
              callId: context.id,
              accountId: context.accountId,
              tokenId: context.tokenId,
              neededMicros: context.response?.worstMicros ?? 0,
            }),
            onDone: {
              target: 'responding',
              actions: { type: 'setHold', params: ({ event }) => ({ holdMicros: event.output.holdMicros }) },
            },
            onError: { target: 'idle', actions: ['exhaust', 'endTurn'] },
          },
        },
        streaming: {
          invoke: { id: 'respond', src: 'respond', input: ({ context }) => respondInput(context) },
          on: { RESPONSE_FINISHED: { guard: 'currentResponse', target: 'afterResponse', actions: 'finishResponse' } },
        },
        afterResponse: {
          always: [
            { guard: 'closeRequested', target: 'idle', actions: 'endTurn' },
            { guard: 'usageBeyondHold', target: 'coveringResponse' },
            { guard: 'wasGoodbye', target: 'idle', actions: ['becomeEndReady', 'endTurn'] },
            { target: 'idle', actions: 'endTurn' },
          ],
        },
        coveringResponse: {
          invoke: {
            id: 'topUp',
            src: 'topUp',
            input: ({ context }): TopUpInput => ({
              callId: context.id,
              accountId: context.accountId,
              tokenId: context.tokenId,
              neededMicros: priceOf(context.usage),
            }),
            onDone: {
              target: 'afterResponse',
              actions: { type: 'setHold', params: ({ event }) => ({ holdMicros: event.output.holdMicros }) },
            },
            onError: { target: 'idle', actions: ['exhaust', 'endTurn'] },
          },
        },
      },
    },
    closing: {
      entry: 'announceClosing',
      invoke: {
        id: 'settle',
        src: 'settle',
        input: ({ context }): SettleCallInput => ({
          callId: context.id,
          accountId: context.accountId,
          tokenId: context.tokenId,
          usage: context.usage,
          capMicros: context.holdMicros,
        }),
        onDone: { target: 'closed', actions: { type: 'recordCharge', params: effectOutput } },
        // Nothing could be charged (the store failed): close anyway, saying so in the log.
        onError: { target: 'closed', actions: { type: 'recordSettleFailure', params: effectError } },
      },
    },
    closed: {
      type: 'final',
      entry: 'announceClosed',
    },
  },
});

/** A call's snapshot, as the call's line and the runtime read it. */
export type CallSnapshot = SnapshotFrom<typeof realtimeCallMachine>;
