import type { AudioBill } from '../../actors/audio/audio-billing.js';
import type { AudioStream } from '../../actors/audio/audio-stream.js';
import type { VoiceRecord, VoicePage } from '../../actors/audio/voice-repo.js';
import type { AudioSvc, VoiceObject } from '../../protocols/audio-objects.js';
import { microsToUsd } from '../../protocols/money.js';
import { MODEL_VERSION } from '../../protocols/models.js';
import { MEDIA_MARKUP_PERCENT, PRICING_VERSION } from '../../protocols/pricing.js';
import type { Exchange } from '../exchange.js';

/** The `svc` block of an audio JSON response. */
export function audioSvc(bill: AudioBill): AudioSvc {
  return {
    model_version: MODEL_VERSION,
    price_usd: microsToUsd(bill.priceMicros),
    our_cost_usd: microsToUsd(bill.costMicros),
    backend: bill.backend,
    engine: bill.engine,
    billing: {
      pricing_version: PRICING_VERSION,
      billing_basis: 'cost_plus',
      markup_percent: MEDIA_MARKUP_PERCENT,
      unit: bill.unit,
      units: bill.units,
    },
  };
}

/** The charge as headers (raw audio and text bodies carry no `svc` block): price and cost with six decimals, what served it, what was counted. */
export function billHeaders(bill: AudioBill): Record<string, string> {
  return {
    'x-svc-price-usd': microsToUsd(bill.priceMicros).toFixed(6),
    'x-svc-our-cost-usd': microsToUsd(bill.costMicros).toFixed(6),
    'x-svc-backend': bill.backend,
    'x-svc-engine': bill.engine,
    'x-svc-billed-units': `${bill.units} ${bill.unit}`,
  };
}

/**
 * Streams produced audio as the body (chunked): headers first (the charge is known), then each
 * chunk as the encoder makes it, waiting while the client is slow; stops when the client leaves.
 */
export async function writeAudioStream(ex: Exchange, stream: AudioStream): Promise<void> {
  ex.beginStream(200, {
    'content-type': stream.contentType,
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
    ...billHeaders(stream.bill),
  });
  for await (const chunk of stream.chunks) {
    if (!ex.write(chunk)) await ex.drained();
    if (ex.signal.aborted) break;
  }
  ex.end();
}

/** A cloned voice on the wire; `bill` only on the answer that made (or replayed) it. */
export function voiceView(voice: VoiceRecord, bill?: AudioBill): VoiceObject {
  return {
    id: voice.id,
    object: 'audio.voice',
    voice_id: voice.id,
    name: voice.name,
    description: voice.description,
    backend: 'premium',
    engine: voice.engine,
    created_at: Math.floor(voice.createdAt / 1000),
    samples: voice.samples,
    sample_seconds: voice.sampleSeconds,
    metadata: voice.metadata,
    ...(bill && { svc: audioSvc(bill) }),
  };
}

/** A page of voices with OpenAI's cursor fields. */
export function voiceListView(page: VoicePage) {
  return {
    object: 'list' as const,
    data: page.records.map((voice) => voiceView(voice)),
    first_id: page.records[0]?.id ?? null,
    last_id: page.records.at(-1)?.id ?? null,
    has_more: page.hasMore,
  };
}

/** The answer to a voice deletion. */
export function voiceDeletedView(id: string) {
  return { id, object: 'audio.voice.deleted' as const, deleted: true as const };
}
