import type {
  CallEmitted,
  CallUsage,
  ItemView as DomainItemView,
  ResponseUsage,
} from '../../actors/realtime/call-events.js';
import type { CallSession } from '../../actors/realtime/call-session.js';
import type { AudioFormat } from '../../actors/realtime/telephony-audio.js';
import { ERROR_CATALOGUE, type ErrorCode } from '../../protocols/errors.js';
import { microsToUsd } from '../../protocols/money.js';
import { svcBlock } from '../../protocols/pricing.js';
import type {
  ItemView,
  RealtimeSvc,
  ResponseUsageView,
  SessionView,
  UnstampedEvent,
} from '../../protocols/realtime-events.js';
import { randomBase62 } from '../../runtime/ids.js';

// The call's domain events rendered as OpenAI Realtime server events (and ours, `svc.realtime.*`).
// Every renderer returns the type its schema in protocols/realtime-events.ts gives it.

/** A server event id: unique per event, as OpenAI's `event_id`. */
export function newEventId(): string {
  return `event_${randomBase62(20)}`;
}

/** The `error` event for `code`, its type from the error catalogue; the call stays up. */
export function errorEvent(
  code: ErrorCode,
  message: string,
  options: { param?: string | null; eventId?: string | null } = {},
): UnstampedEvent<'error'> {
  return {
    type: 'error',
    error: {
      type: ERROR_CATALOGUE[code].type,
      code,
      message,
      param: options.param ?? null,
      event_id: options.eventId ?? null,
    },
  };
}

/** The session as OpenAI shows it. */
export function sessionView(callId: string, session: CallSession): SessionView {
  const detection = session.turnDetection;
  const formatView = (format: AudioFormat | undefined) =>
    format === 'pcmu' || format === 'pcma'
      ? ({ type: `audio/${format}` } as const)
      : ({ type: 'audio/pcm', rate: 24_000 } as const);
  return {
    object: 'realtime.session',
    id: callId,
    type: session.type,
    model: session.model,
    output_modalities: session.outputModalities,
    instructions: session.instructions,
    max_output_tokens: session.maxOutputTokens,
    audio: {
      input: {
        format: formatView(session.inputFormat),
        turn_detection: detection && {
          type: 'server_vad',
          threshold: detection.threshold,
          prefix_padding_ms: detection.prefixPaddingMs,
          silence_duration_ms: detection.silenceDurationMs,
          create_response: detection.createResponse,
          interrupt_response: detection.interruptResponse,
        },
        transcription: session.transcription && {
          model: session.transcription.model,
          language: session.transcription.language,
          prompt: session.transcription.prompt ?? null,
        },
      },
      output: { format: formatView(session.outputFormat), voice: session.voice, speed: session.speed },
    },
    tools: (session.tools ?? []).map((tool) => ({
      type: 'function' as const,
      name: tool.name,
      ...(tool.description !== null ? { description: tool.description } : {}),
      ...(tool.parameters !== null ? { parameters: tool.parameters } : {}),
    })),
    tool_choice:
      typeof session.toolChoice === 'object'
        ? { type: 'function', name: session.toolChoice.name }
        : (session.toolChoice ?? 'auto'),
  };
}

/** A conversation item (user or client-added) as announced. */
function itemView(item: DomainItemView): ItemView {
  const base = { id: item.id, object: 'realtime.item', status: 'completed' } as const;
  if (item.type === 'function_call')
    return { ...base, type: 'function_call', call_id: item.callId, name: item.name, arguments: item.arguments };
  if (item.type === 'function_call_output')
    return { ...base, type: 'function_call_output', call_id: item.callId, output: item.output };
  return { ...base, type: 'message', role: item.role, content: item.content.map((part) => ({ ...part })) };
}

/** A message item on the wire. */
type MessageView = Extract<ItemView, { type: 'message' }>;

/** The user item a committed turn becomes, before its transcript is known. */
function userAudioItem(id: string): DomainItemView {
  return { id, role: 'user', content: [{ type: 'input_audio', transcript: null }] };
}

/** `input_audio_buffer.speech_started`: the caller began to speak (a client stops its playback on it). */
export function speechStartedEvent(
  itemId: string,
  audioStartMs: number,
): UnstampedEvent<'input_audio_buffer.speech_started'> {
  return { type: 'input_audio_buffer.speech_started', audio_start_ms: audioStartMs, item_id: itemId };
}

/** An assistant message item as `response.output_item.*` and `response.done` show it. */
export function assistantItem(
  id: string,
  status: 'in_progress' | 'completed' | 'incomplete',
  withAudio: boolean,
  text: string,
): MessageView {
  const content: MessageView['content'] =
    status === 'in_progress'
      ? []
      : [withAudio ? { type: 'output_audio', transcript: text } : { type: 'output_text', text }];
  return { id, object: 'realtime.item', type: 'message', role: 'assistant', status, content };
}

/** The `usage` of `response.done`, in OpenAI's shape (audio is counted in seconds in `svc`). */
export function responseUsage(usage: ResponseUsage): ResponseUsageView {
  return {
    total_tokens: usage.promptTokens + usage.completionTokens,
    input_tokens: usage.promptTokens,
    output_tokens: usage.completionTokens,
    input_token_details: { text_tokens: usage.promptTokens, audio_tokens: 0, cached_tokens: 0 },
    output_token_details: { text_tokens: usage.completionTokens, audio_tokens: 0 },
    svc: { audio_out_seconds: usage.audioOutMs / 1000 },
  };
}

/** `svc.realtime.closed`: why, what was used, what the client missed, and the charge. */
export function closedEvent(
  event: { reason: Extract<CallEmitted, { type: 'closed' }>['reason']; usage: CallUsage; priceMicros: number },
  droppedAudioFrames: number,
): UnstampedEvent<'svc.realtime.closed'> {
  // pricing.ts builds the tariff part (shared with chat); RealtimeSvcSchema pins its shape in the wire test.
  const tariff = svcBlock(event.priceMicros) as Pick<RealtimeSvc, 'model_version' | 'price_usd' | 'billing' | 'cached'>;
  const { usage } = event;
  return {
    type: 'svc.realtime.closed',
    reason: event.reason,
    usage: {
      audio_in_seconds: usage.audioInMs / 1000,
      audio_out_seconds: usage.audioOutMs / 1000,
      prompt_tokens: usage.promptTokens,
      completion_tokens: usage.completionTokens,
    },
    dropped_audio_frames: droppedAudioFrames,
    svc: { ...tariff, price_usd: microsToUsd(event.priceMicros), billing_basis: 'processed_tokens_plus_audio' },
  };
}

/**
 * The wire events of one committed domain event (none for bookkeeping events). `closed` is not
 * rendered here: it needs what only the socket knows (frames dropped), see `closedEvent`.
 */
export function renderEmitted(event: CallEmitted): UnstampedEvent[] {
  switch (event.type) {
    case 'sessionCreated':
      return [{ type: 'session.created', session: sessionView(event.callId, event.session) }];
    case 'sessionUpdated':
      return [{ type: 'session.updated', session: sessionView(event.callId, event.session) }];
    case 'audioCommitted':
      return [
        ...(event.audioEndMs !== null
          ? [
              {
                type: 'input_audio_buffer.speech_stopped' as const,
                audio_end_ms: event.audioEndMs,
                item_id: event.itemId,
              },
            ]
          : []),
        { type: 'input_audio_buffer.committed', previous_item_id: event.previousItemId, item_id: event.itemId },
        {
          type: 'conversation.item.added',
          previous_item_id: event.previousItemId,
          item: itemView(userAudioItem(event.itemId)),
        },
      ];
    case 'itemAdded':
      return [
        {
          type: 'conversation.item.added',
          previous_item_id: event.previousItemId,
          item: itemView(event.item),
          ...(event.clientEventId ? { client_event_id: event.clientEventId } : {}),
        },
      ];
    case 'itemDone':
      return [{ type: 'conversation.item.done', previous_item_id: event.previousItemId, item: itemView(event.item) }];
    case 'itemTruncated':
      return [
        {
          type: 'conversation.item.truncated',
          item_id: event.itemId,
          content_index: event.contentIndex,
          audio_end_ms: event.audioEndMs,
        },
      ];
    case 'itemDeleted':
      return [{ type: 'conversation.item.deleted', item_id: event.itemId }];
    case 'itemRetrieved':
      return [{ type: 'conversation.item.retrieved', item: itemView(event.item) }];
    case 'transcriptionCompleted':
      // Our transcribers do not stream: the whole transcript is one delta before `completed`.
      return [
        {
          type: 'conversation.item.input_audio_transcription.delta',
          item_id: event.itemId,
          content_index: 0,
          delta: event.transcript,
        },
        {
          type: 'conversation.item.input_audio_transcription.completed',
          item_id: event.itemId,
          content_index: 0,
          transcript: event.transcript,
          usage: { type: 'duration', seconds: event.durationSeconds },
        },
      ];
    case 'transcriptionFailed':
      return [
        {
          type: 'conversation.item.input_audio_transcription.failed',
          item_id: event.itemId,
          content_index: 0,
          error: {
            type: ERROR_CATALOGUE.transcription_failed.type,
            code: 'transcription_failed',
            message: event.message,
          },
        },
      ];
    case 'rejected':
      return [errorEvent(event.code, event.message, { param: event.param, eventId: event.clientEventId })];
    case 'ending':
      return [{ type: 'svc.realtime.ending', reason: event.reason, language: event.language }];
    case 'endReady':
      return [{ type: 'svc.realtime.end_ready', grace_ms: event.graceMs }];
    // A response's events are put in order by CallOrder and rendered by renderResponse.
    case 'responseStarted':
    case 'responseDone':
    case 'holdRaised':
    case 'closing':
    case 'closed':
    case 'settleFailed':
      return [];
  }
}

/** One output audio frame; `svcTs` (send time, epoch ms) for load testers that asked for it. */
export function audioDelta(
  frame: { responseId: string; itemId: string; outputIndex: number; audio: Buffer },
  svcTs: number | null,
): UnstampedEvent<'response.output_audio.delta'> {
  const delta: UnstampedEvent<'response.output_audio.delta'> = {
    type: 'response.output_audio.delta',
    response_id: frame.responseId,
    item_id: frame.itemId,
    output_index: frame.outputIndex,
    content_index: 0,
    delta: frame.audio.toString('base64'),
  };
  if (svcTs !== null) delta.svc_ts = svcTs;
  return delta;
}
