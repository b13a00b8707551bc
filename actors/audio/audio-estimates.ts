import { z } from 'zod';
import type { AudioEngines, PricedEngine } from '../../backends/audio-engines.js';
import {
  countCharacters,
  MusicRequestSchema,
  SoundEffectRequestSchema,
  SpeechRequestSchema,
  TRANSCRIPTION_MAX_SECONDS,
  TRANSCRIPTION_MIN_SECONDS,
} from '../../protocols/audio.js';
import { microsToUsd } from '../../protocols/money.js';
import { MOVING_MODEL_ID, requireModel } from '../../protocols/models.js';
import {
  MEDIA_MARKUP_PERCENT,
  PRICING_VERSION,
  VOICE_CLONE_FEE_MICROS,
  type MediaEstimateObject,
  type MediaModality,
} from '../../protocols/pricing.js';
import { parseOrThrow } from '../../protocols/validation.js';
import type { MediaEstimator } from '../billing/media-estimates.js';
import { unitBill, type AudioBill } from './audio-billing.js';

/** A transcription estimate has no file: it is asked for a length of audio. */
const TranscriptionEstimateSchema = z.looseObject({
  model: z.string().min(1).max(200).default(MOVING_MODEL_ID),
  duration_seconds: z.number().min(TRANSCRIPTION_MIN_SECONDS).max(TRANSCRIPTION_MAX_SECONDS),
  backend: z.literal('standard').nullish(),
});

const VoiceCloneEstimateSchema = z.looseObject({ backend: z.literal('premium').nullish() });

/** The body without the estimate's own `modality` field (speech rejects unknown fields). */
function requestOf(body: Record<string, unknown>): Record<string, unknown> {
  const rest = { ...body };
  delete rest.modality;
  return rest;
}

function estimate(modality: MediaModality, model: string, bill: AudioBill): MediaEstimateObject {
  const cost = microsToUsd(bill.costMicros);
  const price = microsToUsd(bill.priceMicros);
  return {
    object: 'estimate',
    modality,
    model,
    pricing_version: PRICING_VERSION,
    backend: bill.backend,
    units: { basis: bill.unit, min: bill.units, max: bill.units },
    our_cost_usd: { min: cost, max: cost },
    cost_usd: { min: price, max: price },
    markup_percent: MEDIA_MARKUP_PERCENT,
    hold_usd: price,
  };
}

const rated = (backend: string, engine: PricedEngine<{ name: string }>) => ({
  backend,
  engine: engine.backend.name,
  costMicrosPerBlock: engine.costMicrosPerBlock,
});

/**
 * The audio feature's estimators for `POST /v1/estimate` (no engine runs, no balance needed):
 * the request body as it would be sent (a transcription gives `duration_seconds` instead of a
 * file), priced exactly as the request would be; audio prices are known up front, so the range
 * is one value and the hold is that price.
 */
export function audioEstimators(engines: AudioEngines): Partial<Record<MediaModality, MediaEstimator>> {
  return {
    speech: (body) => {
      const request = parseOrThrow(SpeechRequestSchema, requestOf(body));
      const model = requireModel(request.model);
      return estimate(
        'speech',
        model.id,
        unitBill('speech', countCharacters(request.input), rated(request.backend, engines.speech[request.backend])),
      );
    },
    transcription: (body) => {
      const request = parseOrThrow(TranscriptionEstimateSchema, body);
      const model = requireModel(request.model);
      return estimate(
        'transcription',
        model.id,
        unitBill('transcription', request.duration_seconds, rated('standard', engines.transcription)),
      );
    },
    music: (body) => {
      const request = parseOrThrow(MusicRequestSchema, body);
      const model = requireModel(request.model);
      return estimate('music', model.id, unitBill('music', request.duration_seconds, rated('standard', engines.music)));
    },
    sound_effect: (body) => {
      const request = parseOrThrow(SoundEffectRequestSchema, body);
      const model = requireModel(request.model);
      return estimate(
        'sound_effect',
        model.id,
        unitBill('sound_effect', request.duration_seconds, rated('standard', engines.soundEffects)),
      );
    },
    voice_clone: (body) => {
      parseOrThrow(VoiceCloneEstimateSchema, body);
      const clone = engines.voiceClone;
      return estimate('voice_clone', MOVING_MODEL_ID, {
        costMicros: clone.costMicros,
        priceMicros: VOICE_CLONE_FEE_MICROS,
        backend: 'premium',
        engine: clone.backend.name,
        unit: 'clones',
        units: 1,
      });
    },
  };
}
