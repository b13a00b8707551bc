import type { CallEmitted, CallStreamEvent, Modality } from '../../actors/realtime/call-events.js';
import { ERROR_CATALOGUE } from '../../protocols/errors.js';
import type { ItemView, UnstampedEvent } from '../../protocols/realtime-events.js';
import { assistantItem, audioDelta, responseUsage, textDelta } from './server-events.js';

type Started = Extract<CallEmitted, { type: 'responseStarted' }>;
type Done = Extract<CallEmitted, { type: 'responseDone' }>;
type Delta = Extract<CallStreamEvent, { type: 'responseText' | 'responseAudio' | 'responseToolCall' }>;

/** A function call output item as it streams. */
interface OpenCall {
  itemId: string;
  callId: string;
  name: string;
  arguments: string;
  index: number;
}

/** One response as the client has seen it so far. */
interface OpenResponse {
  modalities: Modality[];
  withAudio: boolean;
  nextIndex: number;
  /** The assistant message's output index, once its first text or audio was sent. */
  messageIndex: number | null;
  calls: Map<string, OpenCall>;
}

/**
 * The one place that decides in which order a client sees the events of a response, as OpenAI's
 * Realtime API sends them: `response.created`; then each output item opened when its first piece
 * arrives (the assistant message with its content part on the first text or audio, a function call
 * on its first argument fragment), its deltas, and at the end every item closed in output order
 * before `response.done`. An item is only shown once it has something, so a response that only
 * calls a tool has no empty message. Deltas that arrive before their response's opening was written
 * wait for it.
 */
export class ResponseWire {
  private readonly open = new Map<string, OpenResponse>();
  private readonly early = new Map<string, Delta[]>();

  constructor(
    private readonly send: (event: UnstampedEvent) => void,
    private readonly sendAudio: (event: UnstampedEvent<'response.output_audio.delta'>) => void,
    /** Epoch ms at send for audio deltas (load tests), or null. */
    private readonly stamp: () => number | null,
  ) {}

  /** A response began: `response.created`, then any delta that came before it. */
  started(event: Started): void {
    this.send({
      type: 'response.created',
      response: {
        id: event.responseId,
        object: 'realtime.response',
        status: 'in_progress',
        status_details: null,
        output: [],
        output_modalities: event.modalities,
        usage: null,
      },
    });
    this.open.set(event.responseId, {
      modalities: event.modalities,
      withAudio: event.modalities.includes('audio'),
      nextIndex: 0,
      messageIndex: null,
      calls: new Map(),
    });
    const early = this.early.get(event.responseId);
    this.early.delete(event.responseId);
    for (const delta of early ?? []) this.delta(delta);
  }

  /** A piece of a response's output, in production order. */
  delta(event: Delta): void {
    const response = this.open.get(event.responseId);
    if (!response) {
      const waiting = this.early.get(event.responseId);
      if (waiting) waiting.push(event);
      else this.early.set(event.responseId, [event]);
      return;
    }
    if (event.type === 'responseToolCall') return this.toolCall(event.responseId, response, event);
    const index = this.openMessage(event.responseId, event.itemId, response);
    if (event.type === 'responseText')
      this.send({ ...textDelta(event.responseId, event.itemId, event.delta, response.withAudio), output_index: index });
    else
      this.sendAudio({
        ...audioDelta(event.responseId, event.itemId, event.audio, this.stamp()),
        output_index: index,
      });
  }

  /** The response ended: each item closed in output order, then `response.done` (and its bookkeeping dropped). */
  done(event: Done): void {
    const response = this.open.get(event.responseId) ?? {
      modalities: event.modalities,
      withAudio: event.modalities.includes('audio'),
      nextIndex: 0,
      messageIndex: null,
      calls: new Map<string, OpenCall>(),
    };
    this.open.delete(event.responseId);
    this.early.delete(event.responseId);
    // A response with nothing to show still has its (empty) message, as before function calls.
    if (response.messageIndex === null && (event.text || response.calls.size === 0))
      this.openMessage(event.responseId, event.itemId, response);
    const completed = event.status === 'completed';
    const output: { index: number; item: ItemView }[] = [];
    if (response.messageIndex !== null) {
      const index = response.messageIndex;
      const item = assistantItem(event.itemId, completed ? 'completed' : 'incomplete', response.withAudio, event.text);
      const base = { response_id: event.responseId, item_id: event.itemId, output_index: index, content_index: 0 };
      if (response.withAudio) {
        this.send({ type: 'response.output_audio.done', ...base });
        this.send({ type: 'response.output_audio_transcript.done', ...base, transcript: event.text });
      } else this.send({ type: 'response.output_text.done', ...base, text: event.text });
      this.send({ type: 'response.content_part.done', ...base, part: item.content[0]! });
      this.send({ type: 'response.output_item.done', response_id: event.responseId, output_index: index, item });
      output.push({ index, item });
    }
    for (const call of response.calls.values()) {
      // Only a completed response's calls are the client's to run; a cut one's are incomplete.
      const done = completed && event.toolCalls.some((made) => made.itemId === call.itemId);
      const item = functionCallItem(call, done ? 'completed' : 'incomplete');
      const ref = { response_id: event.responseId, item_id: call.itemId, output_index: call.index };
      if (done)
        this.send({
          type: 'response.function_call_arguments.done',
          ...ref,
          call_id: call.callId,
          name: call.name,
          arguments: call.arguments,
        });
      this.send({ type: 'response.output_item.done', response_id: event.responseId, output_index: call.index, item });
      output.push({ index: call.index, item });
    }
    this.send({
      type: 'response.done',
      response: {
        id: event.responseId,
        object: 'realtime.response',
        status: event.status,
        status_details: statusDetails(event),
        output: output.sort((a, b) => a.index - b.index).map((entry) => entry.item),
        output_modalities: event.modalities,
        usage: responseUsage(event.usage),
      },
    });
  }

  /** The assistant message's output index, opening it (item and content part) on its first piece. */
  private openMessage(responseId: string, itemId: string, response: OpenResponse): number {
    if (response.messageIndex !== null) return response.messageIndex;
    const index = (response.messageIndex = response.nextIndex++);
    this.send({
      type: 'response.output_item.added',
      response_id: responseId,
      output_index: index,
      item: assistantItem(itemId, 'in_progress', response.withAudio, ''),
    });
    this.send({
      type: 'response.content_part.added',
      response_id: responseId,
      item_id: itemId,
      output_index: index,
      content_index: 0,
      part: response.withAudio ? { type: 'output_audio', transcript: '' } : { type: 'output_text', text: '' },
    });
    return index;
  }

  private toolCall(
    responseId: string,
    response: OpenResponse,
    event: Extract<Delta, { type: 'responseToolCall' }>,
  ): void {
    let call = response.calls.get(event.call.itemId);
    if (!call) {
      call = { ...event.call, arguments: '', index: response.nextIndex++ };
      response.calls.set(call.itemId, call);
      this.send({
        type: 'response.output_item.added',
        response_id: responseId,
        output_index: call.index,
        item: functionCallItem(call, 'in_progress'),
      });
    }
    call.arguments += event.delta;
    if (!event.delta) return;
    this.send({
      type: 'response.function_call_arguments.delta',
      response_id: responseId,
      item_id: call.itemId,
      output_index: call.index,
      call_id: call.callId,
      delta: event.delta,
    });
  }
}

/** A function call as an output item; its arguments are shown once complete. */
function functionCallItem(call: OpenCall, status: 'in_progress' | 'completed' | 'incomplete'): ItemView {
  return {
    id: call.itemId,
    object: 'realtime.item',
    type: 'function_call',
    status,
    call_id: call.callId,
    name: call.name,
    arguments: status === 'in_progress' ? '' : call.arguments,
  };
}

function statusDetails(event: Done) {
  if (event.status === 'cancelled')
    return { type: 'cancelled' as const, reason: event.cancelReason ?? 'client_cancelled' };
  if (event.status === 'failed')
    return {
      type: 'failed' as const,
      error: {
        type: ERROR_CATALOGUE.upstream_unavailable.type,
        code: 'upstream_unavailable',
        message: event.failure ?? 'the response failed',
      },
    };
  return null;
}
