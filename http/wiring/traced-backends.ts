import type { Tracer } from '@opentelemetry/api';
import {
  traceImageBackend,
  traceSpeechBackend,
  traceTranscriptionBackend,
} from '../../actors/tracing/traced-media-backends.js';
import type { AudioEngines } from '../../backends/audio-engines.js';
import type { MediaGenerationBackends } from '../../backends/create-media-generation.js';
import type { SpeechBackend } from '../../backends/speech.js';
import type { TranscriptionBackend } from '../../backends/transcription.js';
import type { Config } from '../../runtime/config.js';

/** `gen_ai.request.model` for a backend: the configured upstream model, else the engine's own name. */
function modelOf(backend: { name: string }, upstreamModel: string): string {
  return backend.name === 'openai-compatible' ? upstreamModel : backend.name;
}

/** The speech and transcription engines, each call a client span while tracing is on (as they are when off). */
export function traceVoice(
  config: Config,
  tracer: Tracer | null,
  voice: { speech: SpeechBackend; transcription: TranscriptionBackend },
): { speech: SpeechBackend; transcription: TranscriptionBackend } {
  if (!tracer) return voice;
  return {
    speech: traceSpeechBackend(voice.speech, tracer, modelOf(voice.speech, config.SVC_UPSTREAM_SPEECH_MODEL)),
    transcription: traceTranscriptionBackend(
      voice.transcription,
      tracer,
      modelOf(voice.transcription, config.SVC_UPSTREAM_TRANSCRIPTION_MODEL),
    ),
  };
}

/** The audio feature's configured (standard) engines traced while tracing is on. */
export function traceAudioEngines(config: Config, tracer: Tracer | null, engines: AudioEngines): AudioEngines {
  if (!tracer) return engines;
  const voice = traceVoice(config, tracer, {
    speech: engines.speech.standard.backend,
    transcription: engines.transcription.backend,
  });
  return {
    ...engines,
    speech: { ...engines.speech, standard: { ...engines.speech.standard, backend: voice.speech } },
    transcription: { ...engines.transcription, backend: voice.transcription },
  };
}

/** Image generation traced while tracing is on. */
export function traceGeneration(
  config: Config,
  tracer: Tracer | null,
  generation: MediaGenerationBackends,
): MediaGenerationBackends {
  if (!tracer) return generation;
  const model = modelOf(generation.images, config.SVC_UPSTREAM_IMAGE_MODEL);
  return { ...generation, images: traceImageBackend(generation.images, tracer, model) };
}
