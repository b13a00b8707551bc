import type { CallOutput, OutputItem } from '../../actors/realtime/call-output.js';
import { ERROR_CATALOGUE } from '../../protocols/errors.js';
import type { ItemView, UnstampedEvent } from '../../protocols/realtime-events.js';
import { assistantItem, responseUsage } from './server-events.js';

/** The events of a response, as the call's order hands them over (audio frames aside: see `audioDelta`). */
export type ResponseOutput = Extract<
  CallOutput,
  {
    type:
      | 'responseStarted'
      | 'responseDone'
      | 'outputItemOpened'
      | 'responseText'
      | 'functionArguments'
      | 'outputItemClosed';
  }
>;

// A response's events rendered as OpenAI Realtime server events. Their order is decided before
// they get here (actors/realtime/call-order.ts): each renders to its wire events, in a fixed
// sequence, as it comes.

/** The wire events of one event of a response. */
export function renderResponse(event: ResponseOutput): UnstampedEvent[] {
  switch (event.type) {
    case 'responseStarted':
      return [
        {
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
        },
      ];
    case 'outputItemOpened':
      return opened(event.responseId, event.outputIndex, event.item);
    case 'responseText':
      return [
        {
          type: event.withAudio ? 'response.output_audio_transcript.delta' : 'response.output_text.delta',
          response_id: event.responseId,
          item_id: event.itemId,
          output_index: event.outputIndex,
          content_index: 0,
          delta: event.delta,
        },
      ];
    case 'functionArguments':
      return [
        {
          type: 'response.function_call_arguments.delta',
          response_id: event.responseId,
          item_id: event.itemId,
          output_index: event.outputIndex,
          call_id: event.callId,
          delta: event.delta,
        },
      ];
    case 'outputItemClosed':
      return closed(event.responseId, event.outputIndex, event.item);
    case 'responseDone':
      return [
        {
          type: 'response.done',
          response: {
            id: event.responseId,
            object: 'realtime.response',
            status: event.status,
            status_details: statusDetails(event),
            output: event.output.map(outputItemView),
            output_modalities: event.modalities,
            usage: responseUsage(event.usage),
          },
        },
      ];
  }
}

/** An output item shown: `response.output_item.added`, and a message's content part. */
function opened(responseId: string, outputIndex: number, item: OutputItem): UnstampedEvent[] {
  const added = {
    type: 'response.output_item.added',
    response_id: responseId,
    output_index: outputIndex,
    item: outputItemView(item),
  } as const;
  if (item.type === 'function_call') return [added];
  return [
    added,
    {
      type: 'response.content_part.added',
      response_id: responseId,
      item_id: item.itemId,
      output_index: outputIndex,
      content_index: 0,
      part: item.withAudio ? { type: 'output_audio', transcript: '' } : { type: 'output_text', text: '' },
    },
  ];
}

/** An output item closed: a message's part and text (or transcript) done, a completed call's whole arguments, then the item. */
function closed(responseId: string, outputIndex: number, item: OutputItem): UnstampedEvent[] {
  const view = outputItemView(item);
  const itemDone: UnstampedEvent<'response.output_item.done'> = {
    type: 'response.output_item.done',
    response_id: responseId,
    output_index: outputIndex,
    item: view,
  };
  if (item.type === 'function_call')
    return item.status === 'completed'
      ? [
          {
            type: 'response.function_call_arguments.done',
            response_id: responseId,
            item_id: item.itemId,
            output_index: outputIndex,
            call_id: item.callId,
            name: item.name,
            arguments: item.arguments,
          },
          itemDone,
        ]
      : [itemDone];
  const base = { response_id: responseId, item_id: item.itemId, output_index: outputIndex, content_index: 0 };
  const message = view as Extract<ItemView, { type: 'message' }>;
  const contentDone: UnstampedEvent[] = item.withAudio
    ? [
        { type: 'response.output_audio.done', ...base },
        { type: 'response.output_audio_transcript.done', ...base, transcript: item.text },
      ]
    : [{ type: 'response.output_text.done', ...base, text: item.text }];
  return [...contentDone, { type: 'response.content_part.done', ...base, part: message.content[0]! }, itemDone];
}

/** An output item on the wire; a function call's arguments are shown once complete. */
function outputItemView(item: OutputItem): ItemView {
  if (item.type === 'message') return assistantItem(item.itemId, item.status, item.withAudio, item.text);
  return {
    id: item.itemId,
    object: 'realtime.item',
    type: 'function_call',
    status: item.status,
    call_id: item.callId,
    name: item.name,
    arguments: item.status === 'in_progress' ? '' : item.arguments,
  };
}

function statusDetails(event: Extract<ResponseOutput, { type: 'responseDone' }>) {
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
