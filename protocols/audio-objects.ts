import { z } from 'zod';
import { AUDIO_OUTPUT_FORMATS } from './audio.js';

// Responses of the audio family: transcription objects and stream events (OpenAI's shapes plus
// our `svc` block), voices, and the sound-effect verification manifest.

/** The `svc` block of an audio JSON response: the exact charge and what it was counted on. */
export const AudioSvcSchema = z.strictObject({
  model_version: z.string(),
  price_usd: z.number(),
  our_cost_usd: z.number(),
  /** The `backend` value that served the request (`standard`, `premium`). */
  backend: z.string(),
  /** The engine behind it (`sim`, `espeak-ng`, `pocketsphinx`, `openai-compatible`, `sim-premium`). */
  engine: z.string(),
  billing: z.strictObject({
    pricing_version: z.string(),
    billing_basis: z.literal('cost_plus'),
    markup_percent: z.number(),
    /** What was counted: `input_characters`, `audio_seconds`, `output_seconds`, `clones`. */
    unit: z.string(),
    units: z.number(),
  }),
});

/** The `svc` block on the wire. */
export type AudioSvc = z.output<typeof AudioSvcSchema>;

/** How much audio a transcription billed (OpenAI's `duration` usage). */
const DurationUsageSchema = z.strictObject({ type: z.literal('duration'), seconds: z.number() });

/** `response_format: json`. */
export const TranscriptionObjectSchema = z.strictObject({
  text: z.string(),
  usage: DurationUsageSchema,
  svc: AudioSvcSchema,
});

/** A segment of `verbose_json` (Whisper's shape; `speaker` with `diarization`). */
export const TranscriptionSegmentSchema = z.strictObject({
  id: z.number().int(),
  seek: z.number().int(),
  start: z.number(),
  end: z.number(),
  text: z.string(),
  tokens: z.array(z.number().int()),
  temperature: z.number(),
  avg_logprob: z.number(),
  compression_ratio: z.number(),
  no_speech_prob: z.number(),
  speaker: z.string().optional(),
});

/** A word with its times (`timestamp_granularities[]=word`). */
export const TranscriptionWordSchema = z.strictObject({ word: z.string(), start: z.number(), end: z.number() });

/** `response_format: verbose_json`. */
export const TranscriptionVerboseObjectSchema = z.strictObject({
  task: z.literal('transcribe'),
  language: z.string(),
  duration: z.number(),
  text: z.string(),
  segments: z.array(TranscriptionSegmentSchema).optional(),
  words: z.array(TranscriptionWordSchema).optional(),
  usage: DurationUsageSchema,
  svc: AudioSvcSchema,
});

/** `response_format: diarized_json` (OpenAI's diarized shape). */
export const TranscriptionDiarizedObjectSchema = z.strictObject({
  task: z.literal('transcribe'),
  duration: z.number(),
  text: z.string(),
  segments: z.array(
    z.strictObject({
      type: z.literal('transcript.text.segment'),
      id: z.string(),
      start: z.number(),
      end: z.number(),
      text: z.string(),
      speaker: z.string(),
    }),
  ),
  usage: DurationUsageSchema,
  svc: AudioSvcSchema,
});

/** SSE `transcript.text.delta`: the next piece of the transcript. */
export const TranscriptTextDeltaSchema = z.strictObject({
  type: z.literal('transcript.text.delta'),
  delta: z.string(),
});

/** SSE `transcript.text.done`: the whole transcript, its usage and the charge; the last event. */
export const TranscriptTextDoneSchema = z.strictObject({
  type: z.literal('transcript.text.done'),
  text: z.string(),
  usage: DurationUsageSchema,
  svc: AudioSvcSchema,
});

/** A cloned voice on the wire (`svc` only on the answer that created it). */
export const VoiceObjectSchema = z.strictObject({
  id: z.string(),
  object: z.literal('audio.voice'),
  voice_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  backend: z.literal('premium'),
  engine: z.string(),
  created_at: z.number().int(),
  samples: z.number().int(),
  sample_seconds: z.number(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  svc: AudioSvcSchema.optional(),
});

/** A voice on the wire. */
export type VoiceObject = z.output<typeof VoiceObjectSchema>;

/** GET /v1/audio/voices. */
export const VoiceListObjectSchema = z.strictObject({
  object: z.literal('list'),
  data: z.array(VoiceObjectSchema),
  first_id: z.string().nullable(),
  last_id: z.string().nullable(),
  has_more: z.boolean(),
});

/** DELETE /v1/audio/voices/{voice_id}. */
export const VoiceDeletedObjectSchema = z.strictObject({
  id: z.string(),
  object: z.literal('audio.voice.deleted'),
  deleted: z.literal(true),
});

/**
 * The verification manifest of a sound effect: the request, the output's SHA-256 and what made
 * it. Its SHA-256 (of the exact bytes served) is the `X-Svc-Manifest-SHA256` header.
 */
export const SoundEffectManifestSchema = z.strictObject({
  object: z.literal('audio.sound_effect.manifest'),
  manifest_version: z.literal(1),
  id: z.string(),
  created_at: z.number().int(),
  model: z.string(),
  model_version: z.string(),
  backend: z.string(),
  engine: z.string(),
  request: z.strictObject({
    prompt: z.string(),
    duration_seconds: z.number(),
    loop: z.boolean(),
    prompt_influence: z.number(),
    response_format: z.enum(AUDIO_OUTPUT_FORMATS),
  }),
  output: z.strictObject({
    sha256: z.string(),
    bytes: z.number().int(),
    content_type: z.string(),
    duration_seconds: z.number(),
    sample_rate: z.number().int(),
    channels: z.number().int(),
  }),
});

/** A manifest. */
export type SoundEffectManifest = z.output<typeof SoundEffectManifestSchema>;
