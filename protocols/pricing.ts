import { microsToUsd } from './money.js';
import { MODEL_VERSION, MOVING_MODEL_ID } from './models.js';

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
  const audioCost = Math.ceil((usage.audioInMs * REALTIME_AUDIO_IN_COST_PER_MINUTE_MICROS + usage.audioOutMs * REALTIME_AUDIO_OUT_COST_PER_MINUTE_MICROS) / 60_000);
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

/** The machine-readable tariff served by GET /v1/pricing. */
export function tariff(): Record<string, unknown> {
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
        image: { basis: 'backend_cost_per_image', tiers: ['standard', 'premium'] },
        video: { basis: 'backend_cost_per_second', charged: 'once_on_completion' },
        speech: { basis: 'backend_cost_per_input_character' },
        transcription: { basis: 'backend_cost_per_audio_second' },
        music: { basis: 'backend_cost_per_output_second' },
        sound_effect: { basis: 'backend_cost_per_output_second' },
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
  };
}
