import { z } from 'zod';
import { MetadataSchema } from './json-bounds.js';
import { MOVING_MODEL_ID } from './models.js';

// Requests of the audio family (spec 2.8 to 2.12): speech, transcription, music, sound effects and
// voice clones. Responses are in audio-objects.ts.

/** The longest speech input, in characters (Unicode code points), as OpenAI's `/audio/speech`. */
export const SPEECH_MAX_INPUT_CHARS = 4096;

/** The longest `instructions` and transcription `prompt`, in characters. */
export const AUDIO_MAX_INSTRUCTIONS_CHARS = 4096;

/** The longest music prompt and sound-effect prompt, in characters. */
export const MUSIC_MAX_PROMPT_CHARS = 2000;
export const SOUND_EFFECT_MAX_PROMPT_CHARS = 1000;

/** The largest audio file a transcription takes (as OpenAI: 25 MiB), multipart or base64. */
export const TRANSCRIPTION_MAX_FILE_BYTES = 25 * 1024 * 1024;

/** The longest audio a transcription takes, in seconds (25 minutes), and the shortest. */
export const TRANSCRIPTION_MAX_SECONDS = 1500;
export const TRANSCRIPTION_MIN_SECONDS = 0.1;

/** Music duration: the default when the request has none, and the bounds. */
export const MUSIC_DEFAULT_SECONDS = 30;
export const MUSIC_MIN_SECONDS = 1;
export const MUSIC_MAX_SECONDS = 300;

/** Sound-effect duration: the default when the request has none, and the bounds. */
export const SOUND_EFFECT_DEFAULT_SECONDS = 5;
export const SOUND_EFFECT_MIN_SECONDS = 0.5;
export const SOUND_EFFECT_MAX_SECONDS = 30;

/** Voice-clone samples: how many, and how long each one must be once decoded. */
export const VOICE_MAX_SAMPLES = 10;
export const VOICE_SAMPLE_MIN_SECONDS = 1;
export const VOICE_SAMPLE_MAX_SECONDS = 60;
/** All samples of one clone together, decoded from base64. */
export const VOICE_SAMPLES_MAX_BYTES = 25 * 1024 * 1024;

/** JSON bodies that carry base64 audio (transcription `file_data`, voice samples) may be this large. */
export const AUDIO_JSON_MAX_BODY_BYTES = 36 * 1024 * 1024;

/** The encodings audio is returned in; `pcm` is raw 16-bit little-endian samples. */
export const AUDIO_OUTPUT_FORMATS = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'] as const;

/** One of AUDIO_OUTPUT_FORMATS. */
export type AudioOutputFormat = (typeof AUDIO_OUTPUT_FORMATS)[number];

/** The built-in voices (OpenAI's names); cloned voices are `voice_…` ids. */
export const BUILTIN_VOICES = [
  'alloy',
  'ash',
  'ballad',
  'coral',
  'echo',
  'fable',
  'nova',
  'onyx',
  'sage',
  'shimmer',
  'verse',
  'marin',
  'cedar',
] as const;

/**
 * The values of `backend` (spec: `<default_backend>` and `<premium_backend>`): `standard` is the
 * default engine of each modality, `premium` the engine of cloned voices.
 */
export const AUDIO_BACKENDS = ['standard', 'premium'] as const;

/** One of AUDIO_BACKENDS. */
export type AudioBackendTier = (typeof AUDIO_BACKENDS)[number];

/** A cloned voice's id: `voice_` and 20 base62 characters. */
export const VOICE_ID_PATTERN = /^voice_[0-9A-Za-z]{20}$/;

/** Characters as the tariff counts them: Unicode code points. */
export function countCharacters(text: string): number {
  let count = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    // A high surrogate followed by a low one is one code point.
    if (code >= 0xd800 && code <= 0xdbff && at + 1 < text.length && (text.charCodeAt(at + 1) & 0xfc00) === 0xdc00) at++;
    count++;
  }
  return count;
}

const ModelSchema = z.string().min(1).max(200).default(MOVING_MODEL_ID);

/** An ISO-639-1 (or -3) code, optionally with a region: `en`, `pt-BR`. */
const LanguageSchema = z
  .string()
  .regex(/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})?$/, 'must be an ISO-639-1 language code such as "en" or "pt-BR"')
  .transform((tag) => tag.replace('_', '-'));

const nonEmpty = (max: number) =>
  z
    .string()
    .refine((text) => text.trim().length > 0, 'must not be empty')
    .refine((text) => countCharacters(text) <= max, `must be at most ${max} characters`);

const optional = <S extends z.ZodType>(schema: S) => schema.nullish().transform((value) => value ?? null);

const SpeechFields = z.object({
  input: nonEmpty(SPEECH_MAX_INPUT_CHARS),
  model: ModelSchema,
  // The SDK also sends a custom voice as `{ "id": "voice_…" }`.
  voice: z
    .union([
      z.string().min(1).max(100),
      z.strictObject({ id: z.string().min(1).max(100) }).transform((voice) => voice.id),
    ])
    .nullish()
    .transform((voice) => voice ?? 'alloy'),
  response_format: z
    .enum(AUDIO_OUTPUT_FORMATS)
    .nullish()
    .transform((format) => format ?? 'mp3'),
  speed: z
    .number()
    .min(0.25)
    .max(4)
    .nullish()
    .transform((speed) => speed ?? 1),
  instructions: optional(z.string().max(AUDIO_MAX_INSTRUCTIONS_CHARS)),
  backend: z
    .enum(AUDIO_BACKENDS)
    .nullish()
    .transform((backend) => backend ?? 'standard'),
  language: optional(LanguageSchema),
  metadata: MetadataSchema.nullish(),
  // OpenAI's `sse` stream format is not served: the body is always the audio itself.
  stream_format: z.literal('audio').optional(),
});

const SPEECH_FIELDS = new Set(Object.keys(SpeechFields.shape));

/** POST /v1/audio/speech (spec 2.8): extra properties are rejected, each named in `loc` (as FastAPI's `extra_forbidden`). */
export const SpeechRequestSchema = z
  .looseObject(SpeechFields.shape)
  .superRefine((body, ctx) => {
    for (const key of Object.keys(body)) {
      if (!SPEECH_FIELDS.has(key))
        ctx.addIssue({ code: 'custom', path: [key], message: 'Extra inputs are not permitted' });
    }
  })
  // Past the refinement no other key is left: the body is exactly the fields.
  .transform((body) => body as z.output<typeof SpeechFields>);

/** A parsed speech request. */
export type SpeechRequest = z.output<typeof SpeechRequestSchema>;

/** The response formats of a transcription (spec 2.9), plus OpenAI's `diarized_json`. */
export const TRANSCRIPTION_FORMATS = ['json', 'text', 'srt', 'verbose_json', 'vtt', 'diarized_json'] as const;

/** A boolean as a form field sends it ("true", "false", "1", "0") or as JSON. */
const FormBoolean = z.union([
  z.boolean(),
  z
    .enum(['true', 'false', '1', '0', 'True', 'False'])
    .transform((text) => text === 'true' || text === '1' || text === 'True'),
]);

/** A number as a form field sends it or as JSON. */
const FormNumber = z.union([
  z.number(),
  z
    .string()
    .regex(/^-?\d+(\.\d+)?$/, 'must be a number')
    .transform(Number),
]);

/** The options of a transcription, whichever way the file came (form fields or JSON); extra properties are accepted. */
export const TranscriptionOptionsSchema = z
  .looseObject({
    model: ModelSchema,
    language: optional(LanguageSchema),
    prompt: optional(z.string().max(AUDIO_MAX_INSTRUCTIONS_CHARS)),
    response_format: z
      .enum(TRANSCRIPTION_FORMATS)
      .nullish()
      .transform((format) => format ?? 'json'),
    timestamp_granularities: z
      .array(z.enum(['word', 'segment']))
      .max(2)
      .nullish()
      .transform((granularities) => granularities ?? ['segment']),
    stream: FormBoolean.nullish().transform((stream) => stream ?? false),
    diarization: FormBoolean.nullish().transform((diarize) => diarize ?? false),
    temperature: FormNumber.pipe(z.number().min(0).max(1)).nullish(),
    // Only the standard engine transcribes; premium is the engine of cloned voices.
    backend: z.literal('standard').nullish(),
    metadata: MetadataSchema.nullish(),
  })
  .refine((options) => !options.stream || options.response_format === 'json' || options.response_format === 'text', {
    message: 'stream: true answers transcript.text events; use response_format json or text with it',
    path: ['stream'],
  });

/** Parsed transcription options. */
export type TranscriptionOptions = z.output<typeof TranscriptionOptionsSchema>;

/** Base64 as sent: bare or a `data:` URL. */
const Base64Schema = z
  .string()
  .min(1, 'must not be empty')
  .refine(
    (data) => /^[A-Za-z0-9+/_-]*={0,2}$/.test(stripBase64DataUrl(data)),
    'must be base64 (or a data: URL with a base64 payload)',
  );

/** The base64 payload of `data`, whether bare or a `data:…;base64,` URL, without whitespace. */
export function stripBase64DataUrl(data: string): string {
  const match = /^data:[^,]*;base64,/i.exec(data);
  return (match ? data.slice(match[0].length) : data).replace(/\s+/g, '');
}

/** POST /v1/audio/transcriptions as JSON (spec 2.9): the file as base64 in `file_data`. */
export const TranscriptionJsonSchema = z.looseObject({
  file_data: Base64Schema,
  filename: z
    .string()
    .min(1)
    .max(255)
    .nullish()
    .transform((name) => name ?? 'audio.wav'),
});

/** POST /v1/music/generations (spec 2.10); extra properties are accepted. */
export const MusicRequestSchema = z.looseObject({
  prompt: nonEmpty(MUSIC_MAX_PROMPT_CHARS),
  model: ModelSchema,
  response_format: z
    .enum(AUDIO_OUTPUT_FORMATS)
    .nullish()
    .transform((format) => format ?? 'mp3'),
  duration_seconds: z
    .number()
    .min(MUSIC_MIN_SECONDS)
    .max(MUSIC_MAX_SECONDS)
    .nullish()
    .transform((seconds) => seconds ?? MUSIC_DEFAULT_SECONDS),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 32 - 1)
    .nullish()
    .transform((seed) => seed ?? null),
  backend: z.literal('standard').nullish(),
  metadata: MetadataSchema.nullish(),
});

/** A parsed music request. */
export type MusicRequest = z.output<typeof MusicRequestSchema>;

/** POST /v1/audio/sound-effects (spec 2.11); extra properties are accepted. */
export const SoundEffectRequestSchema = z.looseObject({
  prompt: nonEmpty(SOUND_EFFECT_MAX_PROMPT_CHARS),
  model: ModelSchema,
  duration_seconds: z
    .number()
    .min(SOUND_EFFECT_MIN_SECONDS)
    .max(SOUND_EFFECT_MAX_SECONDS)
    .nullish()
    .transform((seconds) => seconds ?? SOUND_EFFECT_DEFAULT_SECONDS),
  loop: z
    .boolean()
    .nullish()
    .transform((loop) => loop ?? false),
  prompt_influence: z
    .number()
    .min(0)
    .max(1)
    .nullish()
    .transform((influence) => influence ?? 0.3),
  response_format: z
    .enum(AUDIO_OUTPUT_FORMATS)
    .nullish()
    .transform((format) => format ?? 'mp3'),
  backend: z.literal('standard').nullish(),
  metadata: MetadataSchema.nullish(),
});

/** A parsed sound-effect request. */
export type SoundEffectRequest = z.output<typeof SoundEffectRequestSchema>;

/** POST /v1/audio/voices (spec 2.12); extra properties are accepted. */
export const VoiceCloneRequestSchema = z.looseObject({
  name: z.string().trim().min(1, 'must not be empty').max(100),
  samples: z
    .array(Base64Schema)
    .min(1, 'send at least one sample')
    .max(VOICE_MAX_SAMPLES, `at most ${VOICE_MAX_SAMPLES} samples`),
  description: optional(z.string().max(1000)),
  // Cloned voices live on the premium backend.
  backend: z.literal('premium').nullish(),
  metadata: MetadataSchema.nullish(),
});

/** A parsed voice-clone request. */
export type VoiceCloneRequest = z.output<typeof VoiceCloneRequestSchema>;

/** GET /v1/audio/voices: OpenAI-style cursor pagination. */
export const VoiceListQuerySchema = z.looseObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  after: z.string().min(1).max(200).optional(),
});

/** A parsed voice list query. */
export type VoiceListQuery = z.output<typeof VoiceListQuerySchema>;
