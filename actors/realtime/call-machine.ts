import type { SnapshotFrom } from 'xstate';
import { effectError, effectOutput } from '../effect-results.js';
import type { SettleCallInput, TopUpInput, TranscribeInput } from './call-context.js';
import { callSetup } from './call-setup.js';
import { audioKeysOf, priceOf, respondInput } from './turn-plan.js';

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
export const realtimeCallMachine = callSetup.createMachine({
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
