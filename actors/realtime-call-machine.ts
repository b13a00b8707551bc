import { assign, emit, fromPromise, setup } from 'xstate';
import type { CallItem, CallSession, CallUsage } from '../protocols/realtime.js';

/** Everything a call starts with; plain data, persisted with the snapshot. */
export interface CallInput {
  id: string;
  accountId: string;
  tokenId: string | null;
  session: CallSession;
  /** Money held for the call when it opened; the charge never exceeds what is held. */
  holdMicros: number;
  /** How long `end_ready` waits for `svc.realtime.end_ack` before closing anyway. */
  endGraceMs: number;
  at: number;
}

/** Why a call closed. */
export type CloseReason = 'end_ack' | 'grace' | 'disconnected' | 'insufficient_balance';

/** A call's state between events. */
export interface CallContext extends CallInput {
  /** The conversation as text, oldest first: what survives a crash besides the usage. */
  items: CallItem[];
  usage: CallUsage;
  responseId: string | null;
  ending: { reason: 'farewell' | 'hang_up_request'; language: string | null } | null;
  closeReason: CloseReason | null;
  charge: { micros: number; entryId: string | null } | null;
  deadlines: { endGrace?: number | null };
  updatedAt: number;
}

/** Usage one response added. */
export interface ResponseUsage {
  promptTokens: number;
  completionTokens: number;
  audioOutMs: number;
}

/** Input of the runtime's `settle` actor: plain data, so a settlement cut by a crash is re-run (idempotently). */
export interface SettleCallInput {
  callId: string;
  accountId: string;
  tokenId: string | null;
  usage: CallUsage;
  capMicros: number;
}

/** Events the call's socket handler and the host's timers send. */
export type CallEvent =
  | { type: 'OPEN'; at: number }
  | { type: 'SESSION'; session: CallSession; at: number }
  | { type: 'ITEM'; item: CallItem; at: number }
  | { type: 'RESPONSE_START'; responseId: string; at: number }
  | { type: 'RESPONSE_END'; responseId: string; item: CallItem | null; usage: ResponseUsage; at: number }
  | { type: 'HANG_UP'; reason: 'farewell' | 'hang_up_request'; language: string | null; at: number }
  | { type: 'HOLD'; holdMicros: number }
  | { type: 'END_ACK'; at: number }
  | { type: 'EXHAUSTED'; at: number }
  | { type: 'DISCONNECT'; at: number }
  | { type: 'TIMER'; name: string };

/** Items kept in the snapshot; older ones stay in the actor's event log. */
const MAX_ITEMS = 200;

const usageAfter = (usage: CallUsage, added: Partial<CallUsage>): CallUsage => ({
  audioInMs: usage.audioInMs + (added.audioInMs ?? 0),
  audioOutMs: usage.audioOutMs + (added.audioOutMs ?? 0),
  promptTokens: usage.promptTokens + (added.promptTokens ?? 0),
  completionTokens: usage.completionTokens + (added.completionTokens ?? 0),
});

const withItem = (items: CallItem[], item: CallItem | null): CallItem[] => (item ? [...items, item].slice(-MAX_ITEMS) : items);

/**
 * One realtime call, one per socket. Audio frames never reach the machine: the socket handler
 * runs the VAD and the backends and reports turns (items), responses and their usage, so every
 * transition is a durable point of the transcript and the bill. Closing settles the charge once;
 * a call found open after a restart has lost its socket and is closed (and charged) at boot.
 */
export const realtimeCallMachine = setup({
  types: {
    context: {} as CallContext,
    events: {} as CallEvent,
    input: {} as CallInput,
    emitted: {} as { type: string; [key: string]: unknown },
  },
  actors: {
    settle: fromPromise<{ micros: number; entryId: string | null }, SettleCallInput>(() => Promise.reject(new Error('settle must be provided by the runtime'))),
  },
  guards: {
    toTranscription: ({ event }) => event.type === 'SESSION' && event.session.type === 'transcription',
    toRealtime: ({ event }) => event.type === 'SESSION' && event.session.type === 'realtime',
    currentResponse: ({ context, event }) => event.type === 'RESPONSE_END' && event.responseId === context.responseId,
    isGraceTimer: ({ event }) => event.type === 'TIMER' && event.name === 'endGrace',
  },
  actions: {
    touch: assign(({ context, event }) => ({ updatedAt: 'at' in event ? event.at : context.updatedAt })),
    setSession: assign(({ context, event }) => (event.type === 'SESSION' ? { session: event.session } : { session: context.session })),
    addItem: assign(({ context, event }) => {
      if (event.type !== 'ITEM') return {};
      return { items: withItem(context.items, event.item), usage: usageAfter(context.usage, { audioInMs: event.item.role === 'user' ? event.item.audioMs : 0 }) };
    }),
    emitItem: emit(({ event }) => (event.type === 'ITEM' ? { type: 'item', id: event.item.id, role: event.item.role, text: event.item.text, audio_ms: event.item.audioMs } : { type: 'item' })),
    startResponse: assign(({ event }) => (event.type === 'RESPONSE_START' ? { responseId: event.responseId } : {})),
    endResponse: assign(({ context, event }) => {
      if (event.type !== 'RESPONSE_END') return {};
      return { responseId: null, items: withItem(context.items, event.item), usage: usageAfter(context.usage, event.usage) };
    }),
    emitResponseEnd: emit(({ event }) =>
      event.type === 'RESPONSE_END'
        ? { type: 'response_done', response_id: event.responseId, text: event.item?.text ?? null, prompt_tokens: event.usage.promptTokens, completion_tokens: event.usage.completionTokens, audio_out_ms: event.usage.audioOutMs }
        : { type: 'response_done' },
    ),
    setHold: assign(({ event }) => (event.type === 'HOLD' ? { holdMicros: event.holdMicros } : {})),
    closeAs: assign((_, reason: CloseReason) => ({ closeReason: reason, deadlines: {} })),
  },
}).createMachine({
  id: 'realtime-call',
  context: ({ input }) => ({
    ...input,
    items: [],
    usage: { audioInMs: 0, audioOutMs: 0, promptTokens: 0, completionTokens: 0 },
    responseId: null,
    ending: null,
    closeReason: null,
    charge: null,
    deadlines: {},
    updatedAt: input.at,
  }),
  initial: 'connecting',
  on: {
    HOLD: { actions: 'setHold' },
    DISCONNECT: { target: '.closing', actions: ['touch', { type: 'closeAs', params: 'disconnected' }] },
    EXHAUSTED: { target: '.closing', actions: ['touch', { type: 'closeAs', params: 'insufficient_balance' }] },
  },
  states: {
    connecting: {
      on: {
        OPEN: [
          { guard: ({ context }) => context.session.type === 'transcription', target: 'transcribing', actions: 'touch' },
          { target: 'active', actions: 'touch' },
        ],
      },
    },
    active: {
      entry: emit({ type: 'active' }),
      on: {
        SESSION: [
          { guard: 'toTranscription', target: 'transcribing', actions: ['touch', 'setSession'] },
          { actions: ['touch', 'setSession'] },
        ],
        ITEM: { actions: ['touch', 'addItem', 'emitItem'] },
        RESPONSE_START: { target: 'responding', actions: ['touch', 'startResponse', emit(({ event }) => ({ type: 'response_started', response_id: event.responseId }))] },
        HANG_UP: {
          target: 'ending',
          actions: ['touch', assign(({ event }) => ({ ending: { reason: event.reason, language: event.language } })), emit(({ event }) => ({ type: 'ending', reason: event.reason, language: event.language }))],
        },
      },
    },
    responding: {
      on: {
        SESSION: { actions: ['touch', 'setSession'] },
        ITEM: { actions: ['touch', 'addItem', 'emitItem'] },
        RESPONSE_END: { guard: 'currentResponse', target: 'active', actions: ['touch', 'endResponse', 'emitResponseEnd'] },
      },
    },
    // The goodbye is being spoken; its RESPONSE_END leads to end_ready.
    ending: {
      on: {
        RESPONSE_START: { actions: ['touch', 'startResponse'] },
        RESPONSE_END: { guard: 'currentResponse', target: 'end_ready', actions: ['touch', 'endResponse', 'emitResponseEnd'] },
      },
    },
    end_ready: {
      entry: [assign(({ context }) => ({ deadlines: { endGrace: context.updatedAt + context.endGraceMs } })), emit({ type: 'end_ready' })],
      on: {
        END_ACK: { target: 'closing', actions: ['touch', { type: 'closeAs', params: 'end_ack' }] },
        TIMER: { guard: 'isGraceTimer', target: 'closing', actions: { type: 'closeAs', params: 'grace' } },
      },
    },
    // The transcription-only path: turns are transcribed, never answered, and never end the call.
    transcribing: {
      entry: emit({ type: 'transcribing' }),
      on: {
        SESSION: [
          { guard: 'toRealtime', target: 'active', actions: ['touch', 'setSession'] },
          { actions: ['touch', 'setSession'] },
        ],
        ITEM: { actions: ['touch', 'addItem', 'emitItem'] },
      },
    },
    closing: {
      entry: emit(({ context }) => ({ type: 'closing', reason: context.closeReason })),
      on: { DISCONNECT: {}, EXHAUSTED: {}, HOLD: {} },
      invoke: {
        src: 'settle',
        input: ({ context }): SettleCallInput => ({ callId: context.id, accountId: context.accountId, tokenId: context.tokenId, usage: context.usage, capMicros: context.holdMicros }),
        onDone: { target: 'closed', actions: assign(({ event }) => ({ charge: event.output })) },
        // Nothing could be charged (the store failed): close anyway, saying so in the log.
        onError: { target: 'closed', actions: [assign({ charge: () => null }), emit(({ event }) => ({ type: 'settle_failed', message: event.error instanceof Error ? event.error.message : 'settle failed' }))] },
      },
    },
    closed: {
      type: 'final',
      entry: emit(({ context }) => ({ type: 'closed', reason: context.closeReason, price_micros: context.charge?.micros ?? 0 })),
    },
  },
});

/** States in which a call is still connected and talking. */
export const OPEN_CALL_STATES: readonly string[] = ['active', 'responding', 'ending', 'end_ready', 'transcribing'];
