import type { CallEmitted, ResponseToolCall } from './call-events.js';

// What a call's client is shown, in the order it is shown (see CallOrder): the machine's events,
// the line's signals, and a response's pieces made explicit (each output item opened, its deltas
// with their output index, each item closed), so the edge renders every one as it comes and keeps
// no order of its own.

/** An output item of a response: the assistant message (text, or audio with its transcript) or a function call. */
export type OutputItem =
  | {
      type: 'message';
      itemId: string;
      withAudio: boolean;
      status: 'in_progress' | 'completed' | 'incomplete';
      /** The whole text once closed ('' while in progress). */
      text: string;
    }
  | (ResponseToolCall & {
      type: 'function_call';
      status: 'in_progress' | 'completed' | 'incomplete';
    });

/** Where a piece of a response goes: its response, its item and the item's place in the output. */
interface OutputRef {
  responseId: string;
  itemId: string;
  outputIndex: number;
}

/** One event a call's client is shown, in order. */
export type CallOutput =
  | Exclude<CallEmitted, { type: 'responseDone' }>
  /** The response ended: every item was closed before it; `output` lists them in output order. */
  | (Extract<CallEmitted, { type: 'responseDone' }> & { output: OutputItem[] })
  | { type: 'outputItemOpened'; responseId: string; outputIndex: number; item: OutputItem }
  | (OutputRef & { type: 'responseText'; withAudio: boolean; delta: string })
  | (OutputRef & { type: 'responseAudio'; audio: Buffer })
  | (OutputRef & { type: 'functionArguments'; callId: string; delta: string })
  /** An item closed, in output order, before its `responseDone`; a completed call's arguments are shown whole. */
  | { type: 'outputItemClosed'; responseId: string; outputIndex: number; item: OutputItem }
  | { type: 'speechStarted'; itemId: string; audioStartMs: number }
  | { type: 'audioCleared' };
