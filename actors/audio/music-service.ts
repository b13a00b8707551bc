import { AUDIO_CONTENT_TYPES } from '../../backends/audio-codec.js';
import type { AudioEngines } from '../../backends/audio-engines.js';
import type { MusicRequest } from '../../protocols/audio.js';
import { requireModel } from '../../protocols/models.js';
import type { Logger } from '../../runtime/logger.js';
import { AudioBilling, unitBill, type AudioPayer } from './audio-billing.js';
import { startChargedStream, type AudioStream } from './audio-stream.js';

/** One music request: who asks, the validated body, and the request's lifetime. */
export interface MusicCall extends AudioPayer {
  request: MusicRequest;
  signal: AbortSignal;
}

/** What music runs on. */
export interface MusicServiceOptions {
  engines: AudioEngines;
  billing: AudioBilling;
  logger: Logger;
}

/**
 * Music generation (spec 2.10): the composer renders the piece a piece at a time, ffmpeg encodes
 * it (MP3 at 48 kHz by default) and it streams out. Billed by output seconds, cost-plus: the
 * duration is asked for, so the price is exact before the first byte.
 */
export class MusicService {
  constructor(private readonly options: MusicServiceOptions) {}

  /** Starts composing; resolves once the first encoded bytes exist (early failures throw, uncharged). */
  async compose(call: MusicCall): Promise<AudioStream> {
    const { request } = call;
    const model = requireModel(request.model);
    const { engines, billing, logger } = this.options;
    const engine = engines.music;
    const bill = unitBill('music', request.duration_seconds, {
      backend: 'standard',
      engine: engine.backend.name,
      costMicrosPerBlock: engine.costMicrosPerBlock,
    });
    const encode = () => {
      const pcm = engine.backend.compose({
        prompt: request.prompt,
        durationSeconds: request.duration_seconds,
        seed: request.seed,
        signal: call.signal,
        metadata: request.metadata ?? null,
      });
      return engines.codec.encode(pcm, {
        format: request.response_format,
        shape: engine.backend.shape,
        signal: call.signal,
      });
    };
    return await startChargedStream({
      encode,
      contentType: AUDIO_CONTENT_TYPES[request.response_format],
      charge: billing.open(call, bill),
      bill,
      payer: call,
      what: 'music',
      model: model.id,
      logger,
      signal: call.signal,
    });
  }
}
