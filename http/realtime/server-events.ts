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
