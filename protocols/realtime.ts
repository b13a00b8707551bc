import { z } from 'zod';
import { MetadataSchema } from './json-bounds.js';

// The realtime WebSocket's client messages, after OpenAI's Realtime API (GA). Fields we do not act
// on (tracing, noise reduction, …) are accepted and ignored, so OpenAI's clients work.

/**
 * The audio formats served, per direction: 16-bit little-endian mono PCM at 24 kHz, or G.711
 * µ-law (`audio/pcmu`) or A-law (`audio/pcma`) at 8 kHz for telephony.
 */
export const AudioFormatSchema = z.discriminatedUnion(
  'type',
  [
    z.object({
      type: z.literal('audio/pcm'),
      rate: z.literal(24_000, { message: 'audio/pcm is served at 24000 Hz only' }).optional(),
    }),
    z.object({ type: z.literal('audio/pcmu'), rate: z.literal(8_000).optional() }),
    z.object({ type: z.literal('audio/pcma'), rate: z.literal(8_000).optional() }),
  ],
  { message: 'format.type must be audio/pcm, audio/pcmu or audio/pcma' },
);

/** Server VAD settings; `null` turns it off (the client commits turns itself). */
const ServerVadSchema = z.object({
  type: z.literal('server_vad'),
  threshold: z.number().min(0).max(1).optional(),
  prefix_padding_ms: z.number().int().min(0).max(5_000).optional(),
  silence_duration_ms: z.number().int().min(50).max(10_000).optional(),
  create_response: z.boolean().optional(),
  interrupt_response: z.boolean().optional(),
  idle_timeout_ms: z.number().int().nullable().optional(),
});

/** OpenAI's `semantic_vad`, as the Agents SDK asks for it: served by our VAD, `eagerness` setting the silence it waits for. */
const SemanticVadSchema = z.object({
  type: z.literal('semantic_vad'),
  eagerness: z.enum(['low', 'medium', 'high', 'auto']).optional(),
  create_response: z.boolean().optional(),
  interrupt_response: z.boolean().optional(),
});

/** Turn detection: `server_vad`, `semantic_vad` (served by the same VAD), or `null` (the client commits). */
export const TurnDetectionSchema = z
  .discriminatedUnion('type', [ServerVadSchema, SemanticVadSchema], {
    message: 'turn_detection.type must be server_vad or semantic_vad',
  })
  .nullable();

/** A function the model may call (`tools` of the session or of one response); only functions are served. */
export const RealtimeToolSchema = z.object({
  type: z.literal('function', { message: 'only function tools are supported' }),
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, underscores or dashes'),
  description: z.string().max(10_000).optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
});

/** A function tool on the wire. */
export type RealtimeTool = z.output<typeof RealtimeToolSchema>;

/** `tool_choice`: a mode, or one function by name. */
export const RealtimeToolChoiceSchema = z.union([
  z.enum(['auto', 'none', 'required']),
  z.object({ type: z.literal('function'), name: z.string().min(1).max(64) }),
]);

/** A wire `tool_choice`. */
export type RealtimeToolChoice = z.output<typeof RealtimeToolChoiceSchema>;

/** `session` of `session.update`: every field optional, merged into the call's session. */
export const SessionUpdateSchema = z.object({
  type: z.enum(['realtime', 'transcription']).optional(),
  model: z.string().max(200).optional(),
  output_modalities: z
    .array(z.enum(['text', 'audio']))
    .min(1)
    .max(2)
    .optional(),
  instructions: z.string().max(100_000).optional(),
  max_output_tokens: z.union([z.number().int().min(1).max(4096), z.literal('inf')]).optional(),
  tools: z.array(RealtimeToolSchema).max(128).optional(),
  tool_choice: RealtimeToolChoiceSchema.optional(),
  audio: z
    .object({
      input: z
        .object({
          format: AudioFormatSchema.optional(),
          turn_detection: TurnDetectionSchema.optional(),
          transcription: z
            .object({
              model: z.string().max(200).optional(),
              language: z.string().min(2).max(12).optional(),
              prompt: z.string().max(10_000).optional(),
            })
            .nullable()
            .optional(),
        })
        .optional(),
      output: z
        .object({
          format: AudioFormatSchema.optional(),
          voice: z.string().min(1).max(64).optional(),
          speed: z.number().min(0.25).max(4).optional(),
        })
        .optional(),
    })
    .optional(),
});

/** A `session.update` session. */
export type SessionUpdate = z.output<typeof SessionUpdateSchema>;

const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64');

const ItemContentSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('input_text'), text: z.string().max(100_000) }),
  z.object({ type: z.literal('input_audio'), audio: base64, transcript: z.string().optional() }),
  z.object({ type: z.literal('output_text'), text: z.string().max(100_000) }),
  z.object({ type: z.literal('text'), text: z.string().max(100_000) }),
]);

const itemId = z.string().min(1).max(64).optional();
const callId = z.string().min(1).max(128);

/**
 * An item a client adds to the conversation: a message with text or audio content, a function call
 * (history the client replays) or a function call's output (the answer to the model's call).
 */
export const ClientItemSchema = z.discriminatedUnion(
  'type',
  [
    z.object({
      id: itemId,
      type: z.literal('message'),
      role: z.enum(['user', 'assistant', 'system']),
      content: z.array(ItemContentSchema).min(1).max(32),
    }),
    z.object({
      id: itemId,
      type: z.literal('function_call'),
      call_id: callId,
      name: z.string().min(1).max(64),
      arguments: z.string().max(100_000),
    }),
    z.object({ id: itemId, type: z.literal('function_call_output'), call_id: callId, output: z.string().max(100_000) }),
  ],
  { message: 'item.type must be message, function_call or function_call_output' },
);

/** The client messages the call understands, by `type`. */
export const ClientEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('session.update'), event_id: z.string().optional(), session: SessionUpdateSchema }),
  z.object({ type: z.literal('input_audio_buffer.append'), event_id: z.string().optional(), audio: base64 }),
  z.object({ type: z.literal('input_audio_buffer.commit'), event_id: z.string().optional() }),
  z.object({ type: z.literal('input_audio_buffer.clear'), event_id: z.string().optional() }),
  z.object({
    type: z.literal('conversation.item.create'),
    event_id: z.string().optional(),
    previous_item_id: z.string().nullable().optional(),
    item: ClientItemSchema,
  }),
  z.object({
    type: z.literal('response.create'),
    event_id: z.string().optional(),
    response: z
      .object({
        output_modalities: z
          .array(z.enum(['text', 'audio']))
          .min(1)
          .max(2)
          .optional(),
        instructions: z.string().max(100_000).optional(),
        max_output_tokens: z.union([z.number().int().min(1).max(4096), z.literal('inf')]).optional(),
        metadata: MetadataSchema.optional(),
        tools: z.array(RealtimeToolSchema).max(128).optional(),
        tool_choice: RealtimeToolChoiceSchema.optional(),
      })
      .optional(),
  }),
  z.object({
    type: z.literal('conversation.item.truncate'),
    event_id: z.string().optional(),
    item_id: z.string().min(1).max(64),
    content_index: z.number().int().min(0).max(31),
    audio_end_ms: z.number().int().min(0),
  }),
  z.object({
    type: z.literal('conversation.item.delete'),
    event_id: z.string().optional(),
    item_id: z.string().min(1).max(64),
  }),
  z.object({
    type: z.literal('conversation.item.retrieve'),
    event_id: z.string().optional(),
    item_id: z.string().min(1).max(64),
  }),
  z.object({ type: z.literal('response.cancel'), event_id: z.string().optional(), response_id: z.string().optional() }),
  z.object({ type: z.literal('svc.realtime.end_ack'), event_id: z.string().optional() }),
]);

/** A parsed client message. */
export type ClientEvent = z.output<typeof ClientEventSchema>;

/** The client message types, for error messages naming what is understood. */
export const CLIENT_EVENT_TYPES = ClientEventSchema.options.map((option) => option.shape.type.value);

/** POST /v1/realtime/ticket: a one-use ticket for the WebSocket's `?ticket=`, and when it lapses (seconds). */
export const RealtimeTicketObjectSchema = z.strictObject({
  object: z.literal('realtime.ticket'),
  ticket: z.string(),
  expires_at: z.number().int(),
});
/** A realtime ticket on the wire. */
export type RealtimeTicketObject = z.output<typeof RealtimeTicketObjectSchema>;
