import { z } from 'zod';
import { microsToUsd } from './money.js';
import { MODEL_VERSION, MOVING_MODEL_ID } from './models.js';
import { TIER_LADDER_VERSION, TierObjectSchema, tierLadderView } from './payments.js';

/** The tariff's version, returned in every `svc.billing.pricing_version`. */
export const PRICING_VERSION = 'pro-1-usd-2026-07-11-r2';

/** USD per 1M processed tokens. */
export const INPUT_PER_1M_USD = 12;
export const OUTPUT_PER_1M_USD = 48;

// 12 USD per 1M tokens is exactly 12 micro-USD per token: chat prices need no rounding.
const INPUT_MICROS_PER_TOKEN = INPUT_PER_1M_USD;
const OUTPUT_MICROS_PER_TOKEN = OUTPUT_PER_1M_USD;

/** Media is billed cost-plus: the backend's actual cost times (1 + markup), rounded up to the micro-dollar. */
export const MEDIA_MARKUP_PERCENT = 25;

/** Flat fee per voice clone, micro-USD. */
export const VOICE_CLONE_FEE_MICROS = 1_000_000;

/** Processed tokens of one request. */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

/** Backend cost of realtime audio, micro-USD per minute: listened to (transcription) and spoken (speech). */
export const REALTIME_AUDIO_IN_COST_PER_MINUTE_MICROS = 6_000;
export const REALTIME_AUDIO_OUT_COST_PER_MINUTE_MICROS = 15_000;

/** A realtime call's usage: audio both ways in ms and processed tokens. */
export interface RealtimeUsage extends TokenUsage {
  audioInMs: number;
  audioOutMs: number;
}

/** A realtime call's price: its tokens at chat prices plus its audio cost-plus, in micro-USD. */
export function realtimePriceMicros(usage: RealtimeUsage): number {
  const audioCost = Math.ceil(
    (usage.audioInMs * REALTIME_AUDIO_IN_COST_PER_MINUTE_MICROS +
      usage.audioOutMs * REALTIME_AUDIO_OUT_COST_PER_MINUTE_MICROS) /
      60_000,
  );
  return chatPriceMicros(usage) + mediaPriceMicros(audioCost);
}

/** The price of processed tokens in micro-USD. */
export function chatPriceMicros(usage: TokenUsage): number {
  return usage.promptTokens * INPUT_MICROS_PER_TOKEN + usage.completionTokens * OUTPUT_MICROS_PER_TOKEN;
}

/** The cost-plus price of a media job whose backend cost is `costMicros`. */
export function mediaPriceMicros(costMicros: number): number {
  return Math.ceil((costMicros * (100 + MEDIA_MARKUP_PERCENT)) / 100);
}

/** The `svc` block every chat response carries. */
export function svcBlock(priceMicros: number, cached = false): Record<string, unknown> {
  return {
    model_version: MODEL_VERSION,
    price_usd: microsToUsd(priceMicros),
    billing: {
      pricing_version: PRICING_VERSION,
      billing_basis: 'processed_tokens',
      input_per_1m_usd: INPUT_PER_1M_USD,
      output_per_1m_usd: OUTPUT_PER_1M_USD,
    },
    cached,
  };
}

/** The `cost` block beside `svc`: the same charge, itemised. */
export function costBlock(usage: TokenUsage): Record<string, unknown> {
  return {
    currency: 'USD',
    input_usd: microsToUsd(usage.promptTokens * INPUT_MICROS_PER_TOKEN),
    output_usd: microsToUsd(usage.completionTokens * OUTPUT_MICROS_PER_TOKEN),
    total_usd: microsToUsd(chatPriceMicros(usage)),
    processed_prompt_tokens: usage.promptTokens,
    processed_completion_tokens: usage.completionTokens,
  };
}

/** {@link costBlock}'s JSON text, written directly (a stored response is encoded on every request). */
export function costBlockJson(usage: TokenUsage): string {
  const { promptTokens, completionTokens } = usage;
  return (
    `{"currency":"USD","input_usd":${microsToUsd(promptTokens * INPUT_MICROS_PER_TOKEN)}` +
    `,"output_usd":${microsToUsd(completionTokens * OUTPUT_MICROS_PER_TOKEN)}` +
    `,"total_usd":${microsToUsd(chatPriceMicros(usage))}` +
    `,"processed_prompt_tokens":${promptTokens},"processed_completion_tokens":${completionTokens}}`
  );
}

/** Which unit an audio rate is per: speech per 1,000 input characters, the others per minute of audio. */
export const AUDIO_RATE_BLOCKS = {
  speech: { unit: 'input_characters', per: 1000 },
  transcription: { unit: 'audio_seconds', per: 60 },
  music: { unit: 'output_seconds', per: 60 },
  sound_effect: { unit: 'output_seconds', per: 60 },
} as const;

/** An audio modality with per-unit rates. */
export type AudioRatedModality = keyof typeof AUDIO_RATE_BLOCKS;

/** What one audio engine costs us, micro-USD per block (1,000 characters or one minute), behind one `backend` value. */
export interface AudioEngineRate {
  backend: string;
  engine: string;
  costMicrosPerBlock: number;
}

/** Every audio engine's rate, by modality: what `GET /v1/pricing` lists. */
export type AudioRateTable = Record<AudioRatedModality, readonly AudioEngineRate[]>;

/**
 * The backend cost of `units` of audio work at `costMicrosPerBlock` per block of `blockUnits`
 * (characters, or milliseconds against a block of 60,000), rounded up to the micro-USD.
 */
export function audioCostMicros(units: number, costMicrosPerBlock: number, blockUnits: number): number {
  return Math.ceil((units * costMicrosPerBlock) / blockUnits);
}

function audioItem(
  basis: string,
  modality: AudioRatedModality,
  rates: AudioRateTable,
): z.output<typeof AudioItemSchema> {
  const block = AUDIO_RATE_BLOCKS[modality];
  return {
    basis,
    per: block.unit === 'input_characters' ? '1000_input_characters' : 'minute',
    backends: rates[modality].map((rate) => ({
      backend: rate.backend,
      engine: rate.engine,
      cost_usd: microsToUsd(rate.costMicrosPerBlock),
      price_usd: microsToUsd(mediaPriceMicros(rate.costMicrosPerBlock)),
    })),
  };
}

const NO_AUDIO_RATES: AudioRateTable = { speech: [], transcription: [], music: [], sound_effect: [] };

/** What each image backend costs us per megapixel (2^20 pixels), by tier, in micro-USD; one image costs its share, rounded up. */
export const IMAGE_COST_PER_MEGAPIXEL_MICROS = {
  sim: { standard: 10_000, premium: 40_000 },
  'openai-compatible': { standard: 11_000, premium: 42_000 },
} as const;

/** What each video backend costs us per second of clip, by tier, in micro-USD. */
export const VIDEO_COST_PER_SECOND_MICROS = {
  sim: { standard: 50_000, premium: 150_000 },
  'openai-compatible': { standard: 100_000, premium: 300_000 },
} as const;

/** The backend cost of one `width`×`height` image at `perMegapixel` micro-USD, rounded up. */
export function imageCostMicros(perMegapixel: number, width: number, height: number): number {
  return Math.ceil((perMegapixel * width * height) / 1_048_576);
}

function mediaRates(table: Record<string, { standard: number; premium: number }>): z.output<typeof MediaRatesSchema> {
  return Object.entries(table).flatMap(([backend, rates]) =>
    (['standard', 'premium'] as const).map((tier) => ({
      backend,
      tier,
      cost_usd: microsToUsd(rates[tier]),
      price_usd: microsToUsd(mediaPriceMicros(rates[tier])),
    })),
  );
}

/** The machine-readable tariff served by GET /v1/pricing, with the audio engines' rates when given. */
export function tariff(audioRates: AudioRateTable = NO_AUDIO_RATES): PricingObject {
  return {
    object: 'pricing',
    pricing_version: PRICING_VERSION,
    model_version: MODEL_VERSION,
    currency: 'USD',
    billing_model: 'prepaid_balance',
    chat: {
      models: [MOVING_MODEL_ID, `${MOVING_MODEL_ID}-YYYY-MM-DD`],
      billing_basis: 'processed_tokens',
      input_per_1m_usd: INPUT_PER_1M_USD,
      output_per_1m_usd: OUTPUT_PER_1M_USD,
      rounding: 'exact: integer micro-USD per token',
      note: 'Processed tokens include internal calls (planning, drafting, verification) and added tokens for non-text parts.',
    },
    media: {
      billing_basis: 'cost_plus',
      markup_percent: MEDIA_MARKUP_PERCENT,
      rounding: 'up to the next micro-USD',
      items: {
        image: {
          basis: 'backend_cost_per_megapixel',
          tiers: ['standard', 'premium'],
          per: 'megapixel',
          backends: mediaRates(IMAGE_COST_PER_MEGAPIXEL_MICROS),
        },
        video: {
          basis: 'backend_cost_per_second',
          charged: 'once_on_completion',
          per: 'second',
          backends: mediaRates(VIDEO_COST_PER_SECOND_MICROS),
        },
        speech: audioItem('backend_cost_per_input_character', 'speech', audioRates),
        transcription: audioItem('backend_cost_per_audio_second', 'transcription', audioRates),
        music: audioItem('backend_cost_per_output_second', 'music', audioRates),
        sound_effect: audioItem('backend_cost_per_output_second', 'sound_effect', audioRates),
        voice_clone: { basis: 'flat_per_clone', price_usd: microsToUsd(VOICE_CLONE_FEE_MICROS) },
      },
    },
    realtime: {
      billing_basis: 'processed_tokens_plus_audio_cost_plus',
      tokens: 'as chat',
      audio_input_cost_per_minute_usd: microsToUsd(REALTIME_AUDIO_IN_COST_PER_MINUTE_MICROS),
      audio_output_cost_per_minute_usd: microsToUsd(REALTIME_AUDIO_OUT_COST_PER_MINUTE_MICROS),
      markup_percent: MEDIA_MARKUP_PERCENT,
      charged: 'once, when the call closes',
    },
    holds: 'A request first holds its worst-case price; the exact charge is settled and the rest released.',
    tiers: {
      version: TIER_LADDER_VERSION,
      basis: 'paid top-ups through the payment provider and account age; a subscription plan can raise the floor',
      note: 'Limits are per account (every API token together): requests per minute and API requests in flight.',
      ladder: tierLadderView(),
    },
  };
}

const Basis = z.strictObject({ basis: z.string() });

/** Image and video rates per backend and tier: our cost and the price per unit (`per`). */
const MediaRatesSchema = z.array(
  z.strictObject({
    backend: z.string(),
    tier: z.enum(['standard', 'premium']),
    cost_usd: z.number(),
    price_usd: z.number(),
  }),
);

/** An audio item of the tariff: its rates per engine, cost and price per block (`per`). */
const AudioItemSchema = Basis.extend({
  per: z.string(),
  backends: z.array(
    z.strictObject({ backend: z.string(), engine: z.string(), cost_usd: z.number(), price_usd: z.number() }),
  ),
});

/** GET /v1/pricing: the machine-readable tariff. */
export const PricingObjectSchema = z.strictObject({
  object: z.literal('pricing'),
  pricing_version: z.string(),
  model_version: z.string(),
  currency: z.literal('USD'),
  billing_model: z.literal('prepaid_balance'),
  chat: z.strictObject({
    models: z.array(z.string()),
    billing_basis: z.literal('processed_tokens'),
    input_per_1m_usd: z.number(),
    output_per_1m_usd: z.number(),
    rounding: z.string(),
    note: z.string(),
  }),
  media: z.strictObject({
    billing_basis: z.literal('cost_plus'),
    markup_percent: z.number(),
    rounding: z.string(),
    items: z.strictObject({
      image: Basis.extend({ tiers: z.array(z.string()), per: z.string(), backends: MediaRatesSchema }),
      video: Basis.extend({ charged: z.string(), per: z.string(), backends: MediaRatesSchema }),
      speech: AudioItemSchema,
      transcription: AudioItemSchema,
      music: AudioItemSchema,
      sound_effect: AudioItemSchema,
      voice_clone: Basis.extend({ price_usd: z.number() }),
    }),
  }),
  realtime: z.strictObject({
    billing_basis: z.string(),
    tokens: z.string(),
    audio_input_cost_per_minute_usd: z.number(),
    audio_output_cost_per_minute_usd: z.number(),
    markup_percent: z.number(),
    charged: z.string(),
  }),
  holds: z.string(),
  tiers: z.strictObject({
    version: z.string(),
    basis: z.string(),
    note: z.string(),
    ladder: z.array(TierObjectSchema),
  }),
});

/** The tariff on the wire. */
export type PricingObject = z.output<typeof PricingObjectSchema>;

/** A range of an estimate: the best case and the worst case the hold covers. */
const RangeSchema = z.strictObject({ min: z.number(), max: z.number() });

/** POST /v1/estimate: what a chat request would process, cost and take, and what it would hold. */
export const EstimateObjectSchema = z.strictObject({
  object: z.literal('estimate'),
  model: z.string(),
  model_version: z.string(),
  pricing_version: z.string(),
  depth: z.string(),
  passes: z.array(z.string()),
  prompt_tokens: z.number().int(),
  processed_tokens: z.strictObject({ input: RangeSchema, output: RangeSchema }),
  cost_usd: RangeSchema,
  time_seconds: RangeSchema,
  hold_usd: z.number(),
});

/** An estimate on the wire. */
export type EstimateObject = z.output<typeof EstimateObjectSchema>;

/** The modalities `/v1/estimate` prices besides chat (`modality` in the request; absent means chat). */
export const MEDIA_MODALITIES = [
  'speech',
  'transcription',
  'music',
  'sound_effect',
  'voice_clone',
  'image',
  'image_edit',
  'video',
] as const;

/** A media modality. */
export type MediaModality = (typeof MEDIA_MODALITIES)[number];

/** POST /v1/estimate for a media request: its backend cost and price range and the hold. */
export const MediaEstimateObjectSchema = z.strictObject({
  object: z.literal('estimate'),
  modality: z.enum(MEDIA_MODALITIES),
  model: z.string(),
  pricing_version: z.string(),
  backend: z.string(),
  /** What the price is counted in (characters, audio seconds, images, output seconds, clones). */
  units: z.strictObject({ basis: z.string(), min: z.number(), max: z.number() }),
  our_cost_usd: RangeSchema,
  cost_usd: RangeSchema,
  markup_percent: z.number(),
  hold_usd: z.number(),
});

/** A media estimate on the wire. */
export type MediaEstimateObject = z.output<typeof MediaEstimateObjectSchema>;
