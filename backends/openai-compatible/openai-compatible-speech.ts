import type { SpeechBackend, SpeechRequest } from '../speech.js';
import { TerminalError } from '../errors.js';
import {
  postUpstreamAudio,
  upstreamAudioSettings,
  type UpstreamAudioOptions,
  type UpstreamAudioSettings,
} from './upstream-audio-http.js';

async function* synthesize(
  settings: UpstreamAudioSettings,
  model: string,
  request: SpeechRequest,
): AsyncGenerator<Buffer, void, undefined> {
  request.signal.throwIfAborted();
  if (!request.text) return;
  if (request.clonedVoice)
    throw new TerminalError('openai-compatible speech: cloned voices are spoken by the premium engine only');
  const body = JSON.stringify({
    model,
    input: request.text,
    voice: request.voice,
    // OpenAI's `pcm` is exactly our shape: 16-bit little-endian mono at 24 kHz.
    response_format: 'pcm',
    ...(request.speed !== undefined && request.speed !== 1 && { speed: request.speed }),
    ...(request.instructions && { instructions: request.instructions }),
  });
  const response = await postUpstreamAudio(
    settings,
    '/audio/speech',
    body,
    { 'content-type': 'application/json', accept: 'audio/pcm, application/octet-stream', ...request.traceHeaders },
    request.signal,
  );
  let carry: Buffer | null = null;
  for await (const data of response.chunks()) {
    // Chunks may split a sample: hand on whole samples only.
    const bytes: Buffer = carry ? Buffer.concat([carry, data]) : data;
    const even = bytes.length - (bytes.length % 2);
    carry = even < bytes.length ? Buffer.from(bytes.subarray(even)) : null;
    if (even > 0) yield bytes.subarray(0, even);
  }
}

/**
 * Speech from an OpenAI-compatible upstream's `POST /audio/speech`, asked for raw PCM (24 kHz
 * mono, 16-bit) and relayed as it streams in; the upstream applies `speed` and `instructions`
 * itself. Failures are the chat upstream's typed errors, with the key redacted.
 */
export function createOpenAICompatibleSpeechBackend(options: UpstreamAudioOptions & { model: string }): SpeechBackend {
  const settings = upstreamAudioSettings(options);
  return {
    name: 'openai-compatible',
    appliesSpeed: true,
    synthesize: (request) => synthesize(settings, options.model, request),
  };
}
