import type { ErrorCode } from '../../protocols/errors.js';
import type { CallSession } from './call-session.js';

// The realtime call's domain vocabulary: what it remembers (items, usage), what it emits (durable
// events, committed to the call's log before anyone sees them) and what streams past the log
// (response deltas and audio, edge-only refusals). camelCase and micro-USD integers throughout;
// http/realtime renders all of it as OpenAI Realtime wire events.

/** A message as the call keeps it: text only (audio is transcribed on arrival). */
export interface CallMessage {
  /** Absent in snapshots from before function calls: a message. */
  type?: 'message';
  id: string;
  role: 'user' | 'assistant' | 'system';
  text: string;
  /** Length of the audio the text came from (user turns) or was spoken as (assistant), in ms. */
  audioMs: number;
  /** An assistant item cut short (truncated): the audio it had before, up to which a later cut is accepted. */
  producedMs?: number;
}

/** A function call: the model's (from a response) or one the client replays. */
export interface CallFunctionCall {
  type: 'function_call';
  id: string;
  callId: string;
  name: string;
  arguments: string;
}

/** The client's answer to a function call. */
export interface CallFunctionOutput {
  type: 'function_call_output';
  id: string;
  callId: string;
  output: string;
}

/** A conversation item as the call keeps it. */
export type CallItem = CallMessage | CallFunctionCall | CallFunctionOutput;

/** Whether `item` is a message (items from before function calls carry no type). */
export const isMessage = (item: CallItem): item is CallMessage => item.type === undefined || item.type === 'message';

/** A function call a response made, with the item it became. */
export interface ResponseToolCall {
  itemId: string;
  callId: string;
  name: string;
  arguments: string;
}

/** What a call has used so far; the charge is computed from it. */
export interface CallUsage {
  audioInMs: number;
  audioOutMs: number;
  promptTokens: number;
  completionTokens: number;
}

/** Usage one response added. */
export interface ResponseUsage {
  promptTokens: number;
  completionTokens: number;
  audioOutMs: number;
}

/** Output a response produces: text, or audio with its transcript. */
export type Modality = 'text' | 'audio';

/** One content part of an item as it is announced (the audio itself is never repeated). */
export type ItemContent =
  | { type: 'input_text' | 'output_text' | 'text'; text: string }
  | { type: 'input_audio'; transcript: string | null }
  | { type: 'output_audio'; transcript: string };

/** An item as `itemAdded` / `itemDone` announce it: a message, or a function call or its output. */
export type ItemView =
  | { type?: 'message'; id: string; role: CallMessage['role']; content: ItemContent[] }
  | CallFunctionCall
  | CallFunctionOutput;

/** Why a call closed. */
export type CloseReason = 'end_ack' | 'grace' | 'disconnected' | 'insufficient_balance';

/** Why a response was cut short. */
export type CancelReason = 'turn_detected' | 'client_cancelled' | 'disconnected' | 'insufficient_balance';

/** How a response ended. */
export type ResponseStatus = 'completed' | 'cancelled' | 'failed';

/** Why the caller is leaving: a farewell, or an explicit request to hang up. */
export type EndingReason = 'farewell' | 'hang_up_request';

/** A refusal of a client message or a failure the client is told about (`error` on the wire). */
export type Rejection = {
  type: 'rejected';
  code: ErrorCode;
  message: string;
  param: string | null;
  clientEventId: string | null;
};

/** A `rejected` event for `code`. */
export function rejection(
  code: ErrorCode,
  message: string,
  options: { param?: string | null; clientEventId?: string | null } = {},
): Rejection {
  return {
    type: 'rejected',
    code,
    message,
    param: options.param ?? null,
    clientEventId: options.clientEventId ?? null,
  };
}

/** What the call machine emits, all kept in the call's log; the relay holds item, response and close reports until committed, the rest goes out at once. */
export type CallEmitted =
  | { type: 'sessionCreated'; callId: string; session: CallSession }
  | { type: 'sessionUpdated'; callId: string; session: CallSession }
  /** A user turn's audio committed (by the VAD's speech end, or by the client: `audioEndMs` null) as `itemId`, not yet transcribed. */
  | { type: 'audioCommitted'; itemId: string; previousItemId: string | null; audioEndMs: number | null }
  | { type: 'itemAdded'; previousItemId: string | null; item: ItemView; clientEventId: string | null }
  | { type: 'itemDone'; previousItemId: string | null; item: ItemView }
  | { type: 'transcriptionCompleted'; itemId: string; transcript: string; durationSeconds: number }
  | { type: 'transcriptionFailed'; itemId: string; message: string }
  | { type: 'responseStarted'; responseId: string; itemId: string; modalities: Modality[] }
  | {
      type: 'responseDone';
      responseId: string;
      itemId: string;
      modalities: Modality[];
      status: ResponseStatus;
      cancelReason: CancelReason | null;
      failure: string | null;
      text: string;
      /** The function calls the response made, in order (after its text, if any). */
      toolCalls: ResponseToolCall[];
      usage: ResponseUsage;
    }
  /** An assistant audio item cut at `audioEndMs` (by the client, or by a barge-in): its text was cut to match. */
  | { type: 'itemTruncated'; itemId: string; contentIndex: number; audioEndMs: number }
  | { type: 'itemDeleted'; itemId: string }
  | { type: 'itemRetrieved'; item: ItemView }
  | { type: 'holdRaised'; holdMicros: number }
  | Rejection
  | { type: 'ending'; reason: EndingReason; language: string | null }
  | { type: 'endReady'; graceMs: number }
  | { type: 'closing'; reason: CloseReason | null }
  | { type: 'closed'; reason: CloseReason | null; usage: CallUsage; priceMicros: number }
  | { type: 'settleFailed'; message: string };

/**
 * What streams past the log, straight from the call's line and its response effect to the edge:
 * speech starting (the barge-in signal a client must get at once), response text and audio (never
 * stored), input buffer acknowledgements and refusals of audio the machine never saw. Deltas belong to the response whose `responseStarted` precedes them.
 */
export type CallStreamEvent =
  | { type: 'speechStarted'; itemId: string; audioStartMs: number }
  | { type: 'responseText'; responseId: string; itemId: string; delta: string }
  | { type: 'responseAudio'; responseId: string; itemId: string; audio: Buffer }
  /** A fragment of a function call's arguments; the first of a call names it. */
  | { type: 'responseToolCall'; responseId: string; call: Omit<ResponseToolCall, 'arguments'>; delta: string }
  | { type: 'audioCleared' }
  | Rejection;
