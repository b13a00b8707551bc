import { audioRateTable, type AudioEngines } from '../../backends/audio-engines.js';
import type { AudioRateTable } from '../../protocols/pricing.js';
import type { BlobStore } from '../../runtime/blobs/blob-store.js';
import type { Clock } from '../../runtime/clock.js';
import type { Logger } from '../../runtime/logger.js';
import type { Store } from '../../runtime/store/store.js';
import type { Billing } from '../billing/billing.js';
import type { MediaEstimates } from '../billing/media-estimates.js';
import { AudioBilling } from './audio-billing.js';
import { audioEstimators } from './audio-estimates.js';
import { ManifestRepo } from './manifest-repo.js';
import { MusicService } from './music-service.js';
import { SoundEffectService } from './sound-effect-service.js';
import { SpeechService } from './speech-service.js';
import { TranscriptionService } from './transcription-service.js';
import { VoiceRepo } from './voice-repo.js';
import { VoiceService } from './voice-service.js';

/** What the audio feature is built on. */
export interface AudioFeatureOptions {
  engines: AudioEngines;
  billing: Billing;
  store: Store;
  blobs: BlobStore;
  clock: Clock;
  logger: Logger;
}

/**
 * The audio family as callers see it (routes, and later MCP tools and workers): speech,
 * transcriptions, music, sound effects and cloned voices, their rates for the tariff, all on one
 * money path (hold, settle once, release on failure).
 */
export class AudioFeature {
  readonly speech: SpeechService;
  readonly transcriptions: TranscriptionService;
  readonly music: MusicService;
  readonly soundEffects: SoundEffectService;
  readonly voices: VoiceService;
  /** Every engine's rate, as `GET /v1/pricing` lists them. */
  readonly rates: AudioRateTable;

  constructor(private readonly options: AudioFeatureOptions) {
    const { engines, store, blobs, clock, logger } = options;
    const billing = new AudioBilling(options.billing);
    const voiceRepo = new VoiceRepo(store);
    this.speech = new SpeechService({ engines, billing, voices: voiceRepo, logger });
    this.transcriptions = new TranscriptionService({ engines, billing, blobs });
    this.music = new MusicService({ engines, billing, logger });
    this.soundEffects = new SoundEffectService({ engines, billing, manifests: new ManifestRepo(store), clock });
    this.voices = new VoiceService({ engines, billing, blobs, voices: voiceRepo, store, clock });
    this.rates = audioRateTable(engines);
  }

  /** Registers the audio estimators with `POST /v1/estimate`. */
  registerEstimates(media: MediaEstimates): void {
    for (const [modality, estimator] of Object.entries(audioEstimators(this.options.engines)))
      media.register(modality as keyof ReturnType<typeof audioEstimators>, estimator);
  }
}
