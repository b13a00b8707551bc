import type { AudioBackendTier } from '../protocols/audio.js';
import type { AudioRateTable } from '../protocols/pricing.js';
import type { AudioCodec } from './audio-codec.js';
import type { MusicBackend } from './music.js';
import type { SoundEffectBackend } from './sound-effects.js';
import type { SpeechBackend } from './speech.js';
import type { TranscriptionBackend } from './transcription.js';
import type { VoiceCloneBackend } from './voice-clone.js';

/**
 * A backend and what it costs us: micro-USD per block of work (1,000 input characters for
 * speech, one minute of audio for the others), declared by whoever set the engine up.
 */
export interface PricedEngine<B> {
  backend: B;
  costMicrosPerBlock: number;
}

/** Every engine the audio feature runs on, chosen in the composition root. */
export interface AudioEngines {
  /** Speech by `backend` value: `standard` (the configured engine) and `premium` (cloned voices). */
  speech: Record<AudioBackendTier, PricedEngine<SpeechBackend>>;
  transcription: PricedEngine<TranscriptionBackend>;
  music: PricedEngine<MusicBackend>;
  soundEffects: PricedEngine<SoundEffectBackend>;
  /** The premium engine's cloner and what a clone costs us (its price is the tariff's flat fee). */
  voiceClone: { backend: VoiceCloneBackend; costMicros: number };
  codec: AudioCodec;
}

/** The engines' rates as the tariff lists them. */
export function audioRateTable(engines: AudioEngines): AudioRateTable {
  const rate = (backend: string, engine: PricedEngine<{ name: string }>) => ({
    backend,
    engine: engine.backend.name,
    costMicrosPerBlock: engine.costMicrosPerBlock,
  });
  return {
    speech: [rate('standard', engines.speech.standard), rate('premium', engines.speech.premium)],
    transcription: [rate('standard', engines.transcription)],
    music: [rate('standard', engines.music)],
    sound_effect: [rate('standard', engines.soundEffects)],
  };
}
