import type { Config } from '../runtime/config.js';
import type { AudioEngines } from './audio-engines.js';
import { createFfmpegAudioCodec } from './audio/ffmpeg-audio-codec.js';
import { createSpeechBackend, createTranscriptionBackend, type UpstreamVoiceOptions } from './create-voice-backends.js';
import { createSimMusicBackend } from './sim/sim-music.js';
import { createSimPremiumSpeechBackend, createSimVoiceCloneBackend } from './sim/sim-premium-voice.js';
import { createSimSoundEffectBackend } from './sim/sim-sound-effects.js';
import { createSimTimedTranscriptionBackend } from './sim/sim-timed-transcription.js';

// What engines other than the sim cost us. Local engines cost only the machine's time; the
// upstream's figures are OpenAI's list prices for tts-1 ($15 / 1M characters) and whisper-1
// ($0.006 / minute).
const ESPEAK_COST_PER_1K_CHARS_MICROS = 1_000;
const POCKETSPHINX_COST_PER_MINUTE_MICROS = 1_000;
const UPSTREAM_SPEECH_COST_PER_1K_CHARS_MICROS = 15_000;
const UPSTREAM_TRANSCRIPTION_COST_PER_MINUTE_MICROS = 6_000;
/** A premium (cloned or built-in) sim voice costs twice the standard sim voice. */
const SIM_PREMIUM_FACTOR = 2;
/** What one clone costs the sim premium engine: nothing but a moment of CPU. */
const SIM_CLONE_COST_MICROS = 100_000;

/** The upstream's audio settings, when the configuration names an upstream. */
export function upstreamVoiceOptions(config: Config, model: string): UpstreamVoiceOptions | undefined {
  if (!config.SVC_UPSTREAM_BASE_URL) return undefined;
  return {
    baseUrl: config.SVC_UPSTREAM_BASE_URL,
    apiKey: config.SVC_UPSTREAM_API_KEY ?? null,
    model,
    firstByteTimeoutMs: config.SVC_UPSTREAM_TIMEOUT_MS,
    idleTimeoutMs: config.SVC_UPSTREAM_IDLE_TIMEOUT_MS,
  };
}

/**
 * The audio feature's engines from the configuration, each with its declared cost: standard
 * speech and transcription are the engines `SVC_SPEECH_BACKEND` and `SVC_TRANSCRIPTION_BACKEND`
 * name (the sim transcriber with segment and word times), premium speech and cloning the sim
 * premium engine, music and sound effects the sim composer, encoding and decoding ffmpeg.
 */
export function createAudioEngines(config: Config): AudioEngines {
  const simSpeechCost = config.SVC_SIM_SPEECH_COST_PER_1K_CHARS_MICROS;
  const speechCost = {
    sim: simSpeechCost,
    'espeak-ng': ESPEAK_COST_PER_1K_CHARS_MICROS,
    'openai-compatible': UPSTREAM_SPEECH_COST_PER_1K_CHARS_MICROS,
  }[config.SVC_SPEECH_BACKEND];
  const transcriptionKind = config.SVC_TRANSCRIPTION_BACKEND;
  // The sim answers HTTP with segment and word times; the realtime call keeps the plain one.
  const transcription =
    transcriptionKind === 'sim'
      ? createSimTimedTranscriptionBackend()
      : createTranscriptionBackend(transcriptionKind, {
          upstream: upstreamVoiceOptions(config, config.SVC_UPSTREAM_TRANSCRIPTION_MODEL),
        });
  const transcriptionCost = {
    sim: config.SVC_SIM_TRANSCRIPTION_COST_PER_MINUTE_MICROS,
    pocketsphinx: POCKETSPHINX_COST_PER_MINUTE_MICROS,
    'openai-compatible': UPSTREAM_TRANSCRIPTION_COST_PER_MINUTE_MICROS,
  }[transcriptionKind];
  return {
    speech: {
      standard: {
        backend: createSpeechBackend(config.SVC_SPEECH_BACKEND, {
          upstream: upstreamVoiceOptions(config, config.SVC_UPSTREAM_SPEECH_MODEL),
        }),
        costMicrosPerBlock: speechCost,
      },
      premium: { backend: createSimPremiumSpeechBackend(), costMicrosPerBlock: simSpeechCost * SIM_PREMIUM_FACTOR },
    },
    transcription: { backend: transcription, costMicrosPerBlock: transcriptionCost },
    music: { backend: createSimMusicBackend(), costMicrosPerBlock: config.SVC_SIM_GENERATION_COST_PER_MINUTE_MICROS },
    soundEffects: {
      backend: createSimSoundEffectBackend(),
      costMicrosPerBlock: config.SVC_SIM_GENERATION_COST_PER_MINUTE_MICROS,
    },
    voiceClone: { backend: createSimVoiceCloneBackend(), costMicros: SIM_CLONE_COST_MICROS },
    codec: createFfmpegAudioCodec(),
  };
}
