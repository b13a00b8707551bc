import { ConfigError } from '../runtime/config.js';
import { createEspeakSpeechBackend, espeakAvailable } from './local/espeak-speech.js';
import { createPocketsphinxTranscriptionBackend, pocketsphinxAvailable } from './local/pocketsphinx-transcription.js';
import { createOpenAICompatibleSpeechBackend } from './openai-compatible/openai-compatible-speech.js';
import { createOpenAICompatibleTranscriptionBackend } from './openai-compatible/openai-compatible-transcription.js';
import type { UpstreamAudioOptions } from './openai-compatible/upstream-audio-http.js';
import { createSimSpeechBackend } from './sim/sim-speech.js';
import { createSimTranscriptionBackend } from './sim/sim-transcription.js';
import type { SimVoicePool } from './sim/sim-voice-pool.js';
import type { SpeechBackend } from './speech.js';
import type { TranscriptionBackend } from './transcription.js';

/** The speech engines the service can use (`SVC_SPEECH_BACKEND`). */
export type SpeechBackendKind = 'sim' | 'espeak-ng' | 'openai-compatible';

/** The transcription engines the service can use (`SVC_TRANSCRIPTION_BACKEND`). */
export type TranscriptionBackendKind = 'sim' | 'pocketsphinx' | 'openai-compatible';

/** An upstream voice engine: the upstream's address and key, and the model it serves. */
export type UpstreamVoiceOptions = UpstreamAudioOptions & { model: string };

function requireUpstream(variable: string, upstream: UpstreamVoiceOptions | undefined): UpstreamVoiceOptions {
  if (!upstream) throw new ConfigError(`${variable}: openai-compatible needs SVC_UPSTREAM_BASE_URL`);
  return upstream;
}

/** The speech backend of that kind; a ConfigError naming the executable when a local engine is not installed. */
export function createSpeechBackend(
  kind: SpeechBackendKind,
  options: { simRealTime?: boolean; simPool?: SimVoicePool | null; upstream?: UpstreamVoiceOptions } = {},
): SpeechBackend {
  switch (kind) {
    case 'sim':
      return createSimSpeechBackend({ realTime: options.simRealTime ?? false, pool: options.simPool ?? null });
    case 'espeak-ng':
      // Refused at start rather than on the first call: the operator asked for an engine that is not there.
      if (!espeakAvailable())
        throw new ConfigError(
          'SVC_SPEECH_BACKEND: espeak-ng needs the espeak-ng executable, not found on PATH (apt-get install espeak-ng)',
        );
      return createEspeakSpeechBackend();
    case 'openai-compatible':
      return createOpenAICompatibleSpeechBackend(requireUpstream('SVC_SPEECH_BACKEND', options.upstream));
  }
}

/** The transcription backend of that kind; a ConfigError naming the executable when a local engine is not installed. */
export function createTranscriptionBackend(
  kind: TranscriptionBackendKind,
  options: { simPool?: SimVoicePool | null; upstream?: UpstreamVoiceOptions } = {},
): TranscriptionBackend {
  switch (kind) {
    case 'sim':
      return createSimTranscriptionBackend({ pool: options.simPool ?? null });
    case 'pocketsphinx':
      if (!pocketsphinxAvailable())
        throw new ConfigError(
          'SVC_TRANSCRIPTION_BACKEND: pocketsphinx needs the pocketsphinx_continuous executable, not found on PATH (apt-get install pocketsphinx pocketsphinx-en-us)',
        );
      return createPocketsphinxTranscriptionBackend();
    case 'openai-compatible':
      return createOpenAICompatibleTranscriptionBackend(requireUpstream('SVC_TRANSCRIPTION_BACKEND', options.upstream));
  }
}
