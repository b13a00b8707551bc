import { AUDIO_CONTENT_TYPES } from '../../backends/audio-codec.js';
import type { AudioEngines } from '../../backends/audio-engines.js';
import { PCM16_SAMPLE_RATE, type ClonedVoice } from '../../backends/speech.js';
import { BUILTIN_VOICES, countCharacters, VOICE_ID_PATTERN, type SpeechRequest } from '../../protocols/audio.js';
import { ApiError, quoted } from '../../protocols/errors.js';
import { requireModel } from '../../protocols/models.js';
import { fieldError } from '../../protocols/validation.js';
import type { Logger } from '../../runtime/logger.js';
import { AudioBilling, unitBill, type AudioPayer } from './audio-billing.js';
import { startChargedStream, type AudioStream } from './audio-stream.js';
import type { VoiceRepo } from './voice-repo.js';

/** One speech request: who asks, the validated body, and the request's lifetime (a disconnect aborts it). */
export interface SpeechCall extends AudioPayer {
  request: SpeechRequest;
  signal: AbortSignal;
}

/** What speech runs on. */
export interface SpeechServiceOptions {
  engines: AudioEngines;
  billing: AudioBilling;
  voices: VoiceRepo;
  logger: Logger;
}

const BUILTIN = new Set<string>(BUILTIN_VOICES);

/**
 * Text to speech (spec 2.8): the chosen backend's engine speaks, ffmpeg encodes as it speaks, and
 * the audio streams out. Billed by input characters at the engine's rate, cost-plus, held before
 * the engine starts and charged once. A cloned voice is spoken by the premium backend only and is
 * 404 unless it is the caller's.
 */
export class SpeechService {
  constructor(private readonly options: SpeechServiceOptions) {}

  /** Starts speaking; resolves once the first encoded bytes exist (early failures throw, uncharged). */
  async speak(call: SpeechCall): Promise<AudioStream> {
    const { request } = call;
    const model = requireModel(request.model);
    const tier = this.options.engines.speech[request.backend];
    const clonedVoice = this.voiceFor(call);
    const bill = unitBill('speech', countCharacters(request.input), {
      backend: request.backend,
      engine: tier.backend.name,
      costMicrosPerBlock: tier.costMicrosPerBlock,
    });
    const tempo = tier.backend.appliesSpeed ? 1 : request.speed;
    const encode = () => {
      const pcm = tier.backend.synthesize({
        text: request.input,
        voice: clonedVoice ? 'alloy' : request.voice,
        language: request.language,
        signal: call.signal,
        speed: request.speed,
        instructions: request.instructions,
        clonedVoice,
        metadata: request.metadata ?? null,
      });
      return this.options.engines.codec.encode(pcm, {
        format: request.response_format,
        shape: { sampleRate: PCM16_SAMPLE_RATE, channels: 1 },
        tempo,
        signal: call.signal,
      });
    };
    const { billing, logger } = this.options;
    return await startChargedStream({
      encode,
      contentType: AUDIO_CONTENT_TYPES[request.response_format],
      charge: billing.open(call, bill),
      bill,
      payer: call,
      what: 'speech',
      model: model.id,
      logger,
      signal: call.signal,
    });
  }

  /** The cloned voice to speak with, or null for a built-in voice; 422 or 404 for what cannot be spoken. */
  private voiceFor(call: SpeechCall): ClonedVoice | null {
    const { voice, backend } = call.request;
    if (BUILTIN.has(voice.toLowerCase())) return null;
    if (!VOICE_ID_PATTERN.test(voice)) {
      throw fieldError(
        ['body', 'voice'],
        `unknown voice "${quoted(voice)}": use one of ${BUILTIN_VOICES.join(', ')}, or a cloned voice_id with backend "premium"`,
      );
    }
    if (backend !== 'premium')
      throw fieldError(['body', 'voice'], 'a cloned voice_id is spoken by the premium backend: send backend "premium"');
    const record = this.options.voices.get(call.accountId, voice);
    if (!record) throw new ApiError('not_found', `No voice ${voice}.`, { param: 'voice' });
    return { id: record.id, engine: record.engine, profile: record.profile };
  }
}
