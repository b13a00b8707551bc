import type { ResponseUsage } from '../../actors/realtime-call-machine.js';
import { randomBase62 } from '../../runtime/ids.js';

/** A server event id: unique per event, as OpenAI's `event_id`. */
export function newEventId(): string {
  return `event_${randomBase62(20)}`;
}

/** An id for items and responses, in OpenAI's style. */
export function newRealtimeId(prefix: 'item' | 'resp'): string {
  return `${prefix}_${randomBase62(20)}`;
}

/** The error event: the call stays up unless the caller closes it. */
export function errorEvent(code: string, message: string, options: { param?: string | null; eventId?: string | null; type?: string } = {}): Record<string, unknown> {
  return {
    type: 'error',
    error: { type: options.type ?? 'invalid_request_error', code, message, param: options.param ?? null, event_id: options.eventId ?? null },
  };
}

/** An assistant message item as `response.output_item.*` and `response.done` show it. */
export function assistantItem(id: string, status: 'in_progress' | 'completed' | 'incomplete', withAudio: boolean, text: string): Record<string, unknown> {
  const content = status === 'in_progress' ? [] : [withAudio ? { type: 'output_audio', transcript: text } : { type: 'output_text', text }];
  return { id, object: 'realtime.item', type: 'message', role: 'assistant', status, content };
}

/** A user message item made from audio, before or after its transcript is known. */
export function userAudioItem(id: string, transcript: string | null): Record<string, unknown> {
  return { id, object: 'realtime.item', type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_audio', transcript }] };
}

/** The `usage` of `response.done`, in OpenAI's shape (audio is counted in seconds in `svc`). */
export function responseUsage(usage: ResponseUsage): Record<string, unknown> {
  return {
    total_tokens: usage.promptTokens + usage.completionTokens,
    input_tokens: usage.promptTokens,
    output_tokens: usage.completionTokens,
    input_token_details: { text_tokens: usage.promptTokens, audio_tokens: 0, cached_tokens: 0 },
    output_token_details: { text_tokens: usage.completionTokens, audio_tokens: 0 },
    svc: { audio_out_seconds: usage.audioOutMs / 1000 },
  };
}

/** The events that open a response: created, its output item, its content part. */
export function responseOpening(id: string, itemId: string, modalities: readonly string[]): Record<string, unknown>[] {
  const withAudio = modalities.includes('audio');
  return [
    { type: 'response.created', response: { id, object: 'realtime.response', status: 'in_progress', status_details: null, output: [], output_modalities: modalities, usage: null } },
    { type: 'response.output_item.added', response_id: id, output_index: 0, item: assistantItem(itemId, 'in_progress', withAudio, '') },
    { type: 'response.content_part.added', response_id: id, item_id: itemId, output_index: 0, content_index: 0, part: withAudio ? { type: 'output_audio', transcript: '' } : { type: 'output_text', text: '' } },
  ];
}

/** The events that close a response's output (before `response.done`): its text or audio, part and item. */
export function responseOutputDone(id: string, item: Record<string, unknown>, withAudio: boolean, text: string): Record<string, unknown>[] {
  const base = { response_id: id, item_id: item.id, output_index: 0, content_index: 0 };
  const output = withAudio
    ? [{ type: 'response.output_audio.done', ...base }, { type: 'response.output_audio_transcript.done', ...base, transcript: text }]
    : [{ type: 'response.output_text.done', ...base, text }];
  return [...output, { type: 'response.content_part.done', ...base, part: (item.content as unknown[])[0] }, { type: 'response.output_item.done', response_id: id, output_index: 0, item }];
}
