import { z } from 'zod';

// The realtime WebSocket's client messages, after OpenAI's Realtime API (GA). Fields we do not act
// on (tools, tracing, noise reduction, …) are accepted and ignored, so OpenAI's clients work.

/** The only audio format served: 16-bit little-endian mono PCM at 24 kHz. */
export const PcmFormatSchema = z.object({
  type: z.literal('audio/pcm', { message: 'only audio/pcm is supported' }),
  rate: z.literal(24_000, { message: 'only 24000 Hz is supported' }).optional(),
});

/** Server VAD settings; `null` turns it off (the client commits turns itself). */
export const TurnDetectionSchema = z
  .object({
    type: z.literal('server_vad', { message: 'only server_vad is supported' }),
    threshold: z.number().min(0).max(1).optional(),
    prefix_padding_ms: z.number().int().min(0).max(5_000).optional(),
    silence_duration_ms: z.number().int().min(50).max(10_000).optional(),
    create_response: z.boolean().optional(),
    interrupt_response: z.boolean().optional(),
  })
  .nullable();

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
  audio: z
    .object({
      input: z
        .object({
          format: PcmFormatSchema.optional(),
          turn_detection: TurnDetectionSchema.optional(),
          transcription: z.object({ model: z.string().max(200).optional(), language: z.string().min(2).max(12).optional() }).nullable().optional(),
        })
        .optional(),
      output: z.object({ format: PcmFormatSchema.optional(), voice: z.string().min(1).max(64).optional(), speed: z.number().min(0.25).max(4).optional() }).optional(),
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

/** An item a client adds to the conversation: a message with text or audio content. */
export const ClientItemSchema = z.object({
  id: z.string().min(1).max(64).optional(),
  type: z.literal('message', { message: 'only message items are supported' }),
  role: z.enum(['user', 'assistant', 'system']),
  content: z.array(ItemContentSchema).min(1).max(32),
});

/** The client messages the call understands, by `type`. */
export const ClientEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('session.update'), event_id: z.string().optional(), session: SessionUpdateSchema }),
  z.object({ type: z.literal('input_audio_buffer.append'), event_id: z.string().optional(), audio: base64 }),
  z.object({ type: z.literal('input_audio_buffer.commit'), event_id: z.string().optional() }),
  z.object({ type: z.literal('input_audio_buffer.clear'), event_id: z.string().optional() }),
  z.object({ type: z.literal('conversation.item.create'), event_id: z.string().optional(), previous_item_id: z.string().nullable().optional(), item: ClientItemSchema }),
  z.object({
    type: z.literal('response.create'),
    event_id: z.string().optional(),
    response: z
      .object({
        output_modalities: z.array(z.enum(['text', 'audio'])).min(1).max(2).optional(),
        instructions: z.string().max(100_000).optional(),
        max_output_tokens: z.union([z.number().int().min(1).max(4096), z.literal('inf')]).optional(),
        metadata: z.record(z.string(), z.unknown()).optional(),
      })
      .optional(),
  }),
  z.object({ type: z.literal('response.cancel'), event_id: z.string().optional(), response_id: z.string().optional() }),
  z.object({ type: z.literal('svc.realtime.end_ack'), event_id: z.string().optional() }),
]);

/** A parsed client message. */
export type ClientEvent = z.output<typeof ClientEventSchema>;

/** The client message types, for error messages naming what is understood. */
export const CLIENT_EVENT_TYPES = ClientEventSchema.options.map((option) => option.shape.type.value);

/** A conversation item as the call keeps it: text only (audio is transcribed on arrival). */
export interface CallItem {
  id: string;
  role: 'user' | 'assistant' | 'system';
  text: string;
  /** Length of the audio the text came from (user turns) or was spoken as (assistant), in ms. */
  audioMs: number;
}

/** What a call has used so far; the charge is computed from it. */
export interface CallUsage {
  audioInMs: number;
  audioOutMs: number;
  promptTokens: number;
  completionTokens: number;
}

/** The session as the call holds and shows it (OpenAI's shape, with defaults filled in). */
export interface CallSession {
  type: 'realtime' | 'transcription';
  model: string;
  output_modalities: ('text' | 'audio')[];
  instructions: string;
  max_output_tokens: number | 'inf';
  audio: {
    input: {
      format: { type: 'audio/pcm'; rate: 24000 };
      turn_detection: { type: 'server_vad'; threshold: number; prefix_padding_ms: number; silence_duration_ms: number; create_response: boolean; interrupt_response: boolean } | null;
      transcription: { model: string; language: string | null } | null;
    };
    output: { format: { type: 'audio/pcm'; rate: 24000 }; voice: string; speed: number };
  };
}

/** The session a call starts with. */
export function defaultSession(model: string): CallSession {
  return {
    type: 'realtime',
    model,
    output_modalities: ['audio'],
    instructions: '',
    max_output_tokens: 'inf',
    audio: {
      input: {
        format: { type: 'audio/pcm', rate: 24_000 },
        turn_detection: { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500, create_response: true, interrupt_response: true },
        transcription: null,
      },
      output: { format: { type: 'audio/pcm', rate: 24_000 }, voice: 'alloy', speed: 1 },
    },
  };
}

/** `session` with `update` merged in; turn detection fields not given keep their values. */
export function mergeSession(session: CallSession, update: SessionUpdate): CallSession {
  const input = update.audio?.input;
  const output = update.audio?.output;
  let turnDetection = session.audio.input.turn_detection;
  if (input?.turn_detection === null) turnDetection = null;
  else if (input?.turn_detection) {
    const previous = turnDetection ?? defaultSession(session.model).audio.input.turn_detection!;
    turnDetection = { ...previous, ...definedOnly(input.turn_detection) };
  }
  let transcription = session.audio.input.transcription;
  if (input?.transcription === null) transcription = null;
  else if (input?.transcription) transcription = { model: input.transcription.model ?? transcription?.model ?? 'sim', language: input.transcription.language ?? transcription?.language ?? null };
  return {
    type: update.type ?? session.type,
    model: update.model ?? session.model,
    output_modalities: update.output_modalities ? [...new Set(update.output_modalities)] : session.output_modalities,
    instructions: update.instructions ?? session.instructions,
    max_output_tokens: update.max_output_tokens ?? session.max_output_tokens,
    audio: {
      input: { format: session.audio.input.format, turn_detection: turnDetection, transcription },
      output: { format: session.audio.output.format, voice: output?.voice ?? session.audio.output.voice, speed: output?.speed ?? session.audio.output.speed },
    },
  };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
