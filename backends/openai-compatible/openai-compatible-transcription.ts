import { z } from 'zod';
import { RetryableError } from '../errors.js';
import { pcm16Samples, pcm16Wav, wavMonoSamples } from '../pcm16-samples.js';
import { PCM16_SAMPLE_RATE } from '../speech.js';
import type { Transcript, TranscriptionBackend, TranscriptionRequest } from '../transcription.js';
import { UnreadableMediaError } from '../unreadable-media-error.js';
import {
  postUpstreamAudio,
  readUpstreamText,
  upstreamAudioSettings,
  type UpstreamAudioOptions,
  type UpstreamAudioSettings,
} from './upstream-audio-http.js';

/** Whisper's `verbose_json`, as much of it as we use (upstreams differ in the rest). */
const VerboseSchema = z.looseObject({
  text: z.string(),
  language: z.string().optional(),
  duration: z.number().optional(),
  segments: z
    .array(z.looseObject({ start: z.number(), end: z.number(), text: z.string(), speaker: z.string().optional() }))
    .optional(),
  words: z.array(z.looseObject({ word: z.string(), start: z.number(), end: z.number() })).optional(),
});

/** Whisper answers language names; the API speaks ISO-639-1 inside. */
const LANGUAGE_CODES: Readonly<Record<string, string>> = {
  english: 'en',
  french: 'fr',
  german: 'de',
  spanish: 'es',
  italian: 'it',
  portuguese: 'pt',
  dutch: 'nl',
  japanese: 'ja',
  chinese: 'zh',
  russian: 'ru',
  korean: 'ko',
  polish: 'pl',
  turkish: 'tr',
  arabic: 'ar',
  hindi: 'hi',
  swedish: 'sv',
};

/** The sent audio as a WAV file: upstreams take files, and WAV needs no encoder. */
function wavOf(request: TranscriptionRequest): Buffer {
  if (request.format === 'wav') return request.audio;
  if (request.format === 'pcm16') return pcm16Wav(pcm16Samples(request.audio), PCM16_SAMPLE_RATE);
  throw new UnreadableMediaError('openai-compatible transcription: decode MP3 before sending it');
}

function durationOf(request: TranscriptionRequest): number {
  if (request.format === 'pcm16') return request.audio.length / 2 / PCM16_SAMPLE_RATE;
  const wav = wavMonoSamples(request.audio);
  return wav ? wav.samples.length / wav.sampleRate : 0;
}

async function transcribe(
  settings: UpstreamAudioSettings,
  model: string,
  request: TranscriptionRequest,
): Promise<Transcript> {
  request.signal.throwIfAborted();
  const form = new FormData();
  form.append('file', new Blob([wavOf(request)], { type: 'audio/wav' }), 'audio.wav');
  form.append('model', model);
  form.append('response_format', 'verbose_json');
  form.append('timestamp_granularities[]', 'segment');
  if (request.detail?.words) form.append('timestamp_granularities[]', 'word');
  if (request.language) form.append('language', request.language.split('-')[0]!);
  if (request.prompt) form.append('prompt', request.prompt);
  const response = await postUpstreamAudio(
    settings,
    '/audio/transcriptions',
    form,
    { accept: 'application/json', ...request.traceHeaders },
    request.signal,
  );
  const text = await readUpstreamText(response, 16 * 1024 * 1024);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new RetryableError('upstream sent a malformed answer: the transcription is not JSON', 'upstream_error');
  }
  const parsed = VerboseSchema.safeParse(json);
  if (!parsed.success)
    throw new RetryableError('upstream sent a malformed answer: no transcription text', 'upstream_error', null, {
      cause: parsed.error,
    });
  const answer = parsed.data;
  const language = answer.language
    ? (LANGUAGE_CODES[answer.language.toLowerCase()] ?? answer.language.toLowerCase())
    : undefined;
  return {
    text: answer.text.trim(),
    durationSeconds: answer.duration ?? durationOf(request),
    ...(language && { language }),
    ...(answer.segments && {
      segments: answer.segments.map((s) => ({
        start: s.start,
        end: s.end,
        text: s.text.trim(),
        ...(s.speaker && { speaker: s.speaker }),
      })),
    }),
    ...(answer.words && { words: answer.words.map((w) => ({ word: w.word.trim(), start: w.start, end: w.end })) }),
  };
}

/**
 * Transcription by an OpenAI-compatible upstream's `POST /audio/transcriptions` (Whisper's
 * `verbose_json`, with word times when asked): the audio goes up as WAV, the language and prompt
 * as hints. Failures are the chat upstream's typed errors, with the key redacted.
 */
export function createOpenAICompatibleTranscriptionBackend(
  options: UpstreamAudioOptions & { model: string },
): TranscriptionBackend {
  const settings = upstreamAudioSettings(options);
  return { name: 'openai-compatible', transcribe: (request) => transcribe(settings, options.model, request) };
}
