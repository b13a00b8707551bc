import { z } from 'zod';
import { TokenTariffSchema } from './chat-response.js';

// The realtime WebSocket's server events, after OpenAI's Realtime API (GA), plus ours
// (`svc.realtime.*`): one schema per event type, so the renderers in http/realtime return exactly
// these shapes (their types are the schemas' outputs) and a test holds samples of each to them.

const PcmFormatViewSchema = z.union([
  z.strictObject({ type: z.literal('audio/pcm'), rate: z.literal(24_000) }),
  z.strictObject({ type: z.enum(['audio/pcmu', 'audio/pcma']) }),
]);
const ModalitySchema = z.enum(['text', 'audio']);

/** The session as `session.created` / `session.updated` show it. */
export const SessionViewSchema = z.strictObject({
  object: z.literal('realtime.session'),
  id: z.string(),
  type: z.enum(['realtime', 'transcription']),
  model: z.string(),
  output_modalities: z.array(ModalitySchema),
  instructions: z.string(),
  max_output_tokens: z.union([z.number().int(), z.literal('inf')]),
  audio: z.strictObject({
    input: z.strictObject({
      format: PcmFormatViewSchema,
      turn_detection: z
        .strictObject({
          type: z.literal('server_vad'),
          threshold: z.number(),
          prefix_padding_ms: z.number(),
          silence_duration_ms: z.number(),
          create_response: z.boolean(),
          interrupt_response: z.boolean(),
        })
        .nullable(),
      transcription: z
        .strictObject({ model: z.string(), language: z.string().nullable(), prompt: z.string().nullable() })
        .nullable(),
    }),
    output: z.strictObject({ format: PcmFormatViewSchema, voice: z.string(), speed: z.number() }),
  }),
  tools: z.array(
    z.strictObject({
      type: z.literal('function'),
      name: z.string(),
      description: z.string().optional(),
      parameters: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
  tool_choice: z.union([
    z.enum(['auto', 'none', 'required']),
    z.strictObject({ type: z.literal('function'), name: z.string() }),
  ]),
});
export type SessionView = z.output<typeof SessionViewSchema>;

/** One content part of an item. */
export const ItemContentViewSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('input_text'), text: z.string() }),
  z.strictObject({ type: z.literal('text'), text: z.string() }),
  z.strictObject({ type: z.literal('output_text'), text: z.string() }),
  z.strictObject({ type: z.literal('input_audio'), transcript: z.string().nullable() }),
  z.strictObject({ type: z.literal('output_audio'), transcript: z.string() }),
]);

const itemStatus = z.enum(['in_progress', 'completed', 'incomplete']);

/** A conversation item (`realtime.item`): a message, a function call, or a function call's output. */
export const ItemViewSchema = z.discriminatedUnion('type', [
  z.strictObject({
    id: z.string(),
    object: z.literal('realtime.item'),
    type: z.literal('message'),
    role: z.enum(['user', 'assistant', 'system']),
    status: itemStatus,
    content: z.array(ItemContentViewSchema),
  }),
  z.strictObject({
    id: z.string(),
    object: z.literal('realtime.item'),
    type: z.literal('function_call'),
    status: itemStatus,
    call_id: z.string(),
    name: z.string(),
    arguments: z.string(),
  }),
  z.strictObject({
    id: z.string(),
    object: z.literal('realtime.item'),
    type: z.literal('function_call_output'),
    status: itemStatus,
    call_id: z.string(),
    output: z.string(),
  }),
]);
export type ItemView = z.output<typeof ItemViewSchema>;

/** `usage` of `response.done` (audio is counted in seconds in `svc`). */
export const ResponseUsageViewSchema = z.strictObject({
  total_tokens: z.number().int().nonnegative(),
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  input_token_details: z.strictObject({
    text_tokens: z.number().int(),
    audio_tokens: z.number().int(),
    cached_tokens: z.number().int(),
  }),
  output_token_details: z.strictObject({ text_tokens: z.number().int(), audio_tokens: z.number().int() }),
  svc: z.strictObject({ audio_out_seconds: z.number().nonnegative() }),
});
export type ResponseUsageView = z.output<typeof ResponseUsageViewSchema>;

/** A response (`realtime.response`). */
export const ResponseViewSchema = z.strictObject({
  id: z.string(),
  object: z.literal('realtime.response'),
  status: z.enum(['in_progress', 'completed', 'cancelled', 'failed']),
  status_details: z.union([
    z.null(),
    z.strictObject({
      type: z.literal('cancelled'),
      reason: z.enum(['turn_detected', 'client_cancelled', 'disconnected', 'insufficient_balance']),
    }),
    z.strictObject({
      type: z.literal('failed'),
      error: z.strictObject({ type: z.string(), code: z.string(), message: z.string() }),
    }),
  ]),
  output: z.array(ItemViewSchema),
  output_modalities: z.array(ModalitySchema),
  usage: ResponseUsageViewSchema.nullable(),
});

/** The `error` of an `error` event: code and type from the error catalogue. */
export const ErrorViewSchema = z.strictObject({
  type: z.string(),
  code: z.string(),
  message: z.string(),
  param: z.string().nullable(),
  event_id: z.string().nullable(),
});

/** The `svc` block of `svc.realtime.closed`: the charge and the tariff it was made under. */
export const RealtimeSvcSchema = z.strictObject({
  model_version: z.string(),
  price_usd: z.number().nonnegative(),
  billing: TokenTariffSchema,
  cached: z.boolean(),
  billing_basis: z.literal('processed_tokens_plus_audio'),
});
export type RealtimeSvc = z.output<typeof RealtimeSvcSchema>;

const eventId = z.string();
const contentRef = {
  response_id: z.string(),
  item_id: z.string(),
  output_index: z.number().int(),
  content_index: z.number().int(),
};

/** Every server event the realtime socket sends, by `type`. */
export const ServerEventSchema = z.discriminatedUnion('type', [
  z.strictObject({ event_id: eventId, type: z.literal('session.created'), session: SessionViewSchema }),
  z.strictObject({ event_id: eventId, type: z.literal('session.updated'), session: SessionViewSchema }),
  z.strictObject({
    event_id: eventId,
    type: z.literal('input_audio_buffer.speech_started'),
    audio_start_ms: z.number(),
    item_id: z.string(),
  }),
  z.strictObject({
    event_id: eventId,
    type: z.literal('input_audio_buffer.speech_stopped'),
    audio_end_ms: z.number(),
    item_id: z.string(),
  }),
  z.strictObject({
    event_id: eventId,
    type: z.literal('input_audio_buffer.committed'),
    previous_item_id: z.string().nullable(),
    item_id: z.string(),
  }),
  z.strictObject({ event_id: eventId, type: z.literal('input_audio_buffer.cleared') }),
  z.strictObject({
    event_id: eventId,
    type: z.literal('conversation.item.added'),
    previous_item_id: z.string().nullable(),
    item: ItemViewSchema,
    client_event_id: z.string().optional(),
  }),
  z.strictObject({
    event_id: eventId,
    type: z.literal('conversation.item.done'),
    previous_item_id: z.string().nullable(),
    item: ItemViewSchema,
  }),
  z.strictObject({
    event_id: eventId,
    type: z.literal('conversation.item.truncated'),
    item_id: z.string(),
    content_index: z.number().int(),
    audio_end_ms: z.number().int(),
  }),
  z.strictObject({ event_id: eventId, type: z.literal('conversation.item.deleted'), item_id: z.string() }),
  z.strictObject({ event_id: eventId, type: z.literal('conversation.item.retrieved'), item: ItemViewSchema }),
  z.strictObject({
    event_id: eventId,
    type: z.literal('conversation.item.input_audio_transcription.delta'),
    item_id: z.string(),
    content_index: z.number().int(),
    delta: z.string(),
  }),
  z.strictObject({
    event_id: eventId,
    type: z.literal('conversation.item.input_audio_transcription.completed'),
    item_id: z.string(),
    content_index: z.number().int(),
    transcript: z.string(),
    usage: z.strictObject({ type: z.literal('duration'), seconds: z.number().nonnegative() }),
  }),
  z.strictObject({
    event_id: eventId,
    type: z.literal('conversation.item.input_audio_transcription.failed'),
    item_id: z.string(),
    content_index: z.number().int(),
    error: z.strictObject({ type: z.string(), code: z.string(), message: z.string() }),
  }),
  z.strictObject({ event_id: eventId, type: z.literal('response.created'), response: ResponseViewSchema }),
  z.strictObject({
    event_id: eventId,
    type: z.literal('response.output_item.added'),
    response_id: z.string(),
    output_index: z.number().int(),
    item: ItemViewSchema,
  }),
  z.strictObject({
    event_id: eventId,
    type: z.literal('response.content_part.added'),
    ...contentRef,
    part: ItemContentViewSchema,
  }),
  z.strictObject({
    event_id: eventId,
    type: z.literal('response.output_text.delta'),
    ...contentRef,
    delta: z.string(),
  }),
  z.strictObject({
    event_id: eventId,
    type: z.literal('response.output_audio_transcript.delta'),
    ...contentRef,
    delta: z.string(),
  }),
  // `svc_ts` (epoch ms at send) only with `?svc_timing=1`, for load tests measuring relay latency.
  z.strictObject({
    event_id: eventId,
    type: z.literal('response.output_audio.delta'),
    ...contentRef,
    delta: z.string(),
    svc_ts: z.number().optional(),
  }),
  z.strictObject({
    event_id: eventId,
    type: z.literal('response.function_call_arguments.delta'),
    response_id: z.string(),
    item_id: z.string(),
    output_index: z.number().int(),
    call_id: z.string(),
    delta: z.string(),
  }),
  z.strictObject({
    event_id: eventId,
    type: z.literal('response.function_call_arguments.done'),
    response_id: z.string(),
    item_id: z.string(),
    output_index: z.number().int(),
    call_id: z.string(),
    name: z.string(),
    arguments: z.string(),
  }),
  z.strictObject({ event_id: eventId, type: z.literal('response.output_text.done'), ...contentRef, text: z.string() }),
  z.strictObject({ event_id: eventId, type: z.literal('response.output_audio.done'), ...contentRef }),
  z.strictObject({
    event_id: eventId,
    type: z.literal('response.output_audio_transcript.done'),
    ...contentRef,
    transcript: z.string(),
  }),
  z.strictObject({
    event_id: eventId,
    type: z.literal('response.content_part.done'),
    ...contentRef,
    part: ItemContentViewSchema,
  }),
  z.strictObject({
    event_id: eventId,
    type: z.literal('response.output_item.done'),
    response_id: z.string(),
    output_index: z.number().int(),
    item: ItemViewSchema,
  }),
  z.strictObject({ event_id: eventId, type: z.literal('response.done'), response: ResponseViewSchema }),
  z.strictObject({ event_id: eventId, type: z.literal('error'), error: ErrorViewSchema }),
  z.strictObject({
    event_id: eventId,
    type: z.literal('svc.realtime.ending'),
    reason: z.enum(['farewell', 'hang_up_request']),
    language: z.string().nullable(),
  }),
  z.strictObject({
    event_id: eventId,
    type: z.literal('svc.realtime.end_ready'),
    grace_ms: z.number().int().nonnegative(),
  }),
  z.strictObject({
    event_id: eventId,
    type: z.literal('svc.realtime.closed'),
    reason: z.enum(['end_ack', 'grace', 'disconnected', 'insufficient_balance']).nullable(),
    usage: z.strictObject({
      audio_in_seconds: z.number(),
      audio_out_seconds: z.number(),
      prompt_tokens: z.number().int(),
      completion_tokens: z.number().int(),
    }),
    dropped_audio_frames: z.number().int().nonnegative(),
    svc: RealtimeSvcSchema,
  }),
]);

/** A server event as sent. */
export type ServerEvent = z.output<typeof ServerEventSchema>;

/** Every server event type. */
export const SERVER_EVENT_TYPES = ServerEventSchema.options.map((option) => option.shape.type.value);

/** A server event before the outbox stamps its `event_id`. */
export type UnstampedEvent<T extends ServerEvent['type'] = ServerEvent['type']> = T extends unknown
  ? Omit<Extract<ServerEvent, { type: T }>, 'event_id'>
  : never;
