import { setTimeout as sleep } from 'node:timers/promises';
import { TerminalError } from '../errors.js';
import type { SpeechBackend, SpeechRequest } from '../speech.js';
import { PCM16_BYTES_PER_SECOND } from '../transcription.js';
import { throwScriptedFailure } from './sim-script.js';
import { SIM_VOICE_MAX_BYTES, simVoiceChunks } from './sim-voice-codec.js';

/** 100 ms of PCM16 at 24 kHz: the sim's unit of output. */
const CHUNK_BYTES = PCM16_BYTES_PER_SECOND / 10;

/** How the sim speaks. */
export interface SimSpeechOptions {
  /** Pace chunks at playback speed, as a real engine streaming live would (default false: instant). */
  realTime?: boolean;
}

async function* synthesize(
  { text, signal, metadata }: SpeechRequest,
  realTime: boolean,
): AsyncGenerator<Buffer, void, undefined> {
  signal.throwIfAborted();
  throwScriptedFailure(metadata);
  if (!text) return;
  if (Buffer.byteLength(text, 'utf8') > SIM_VOICE_MAX_BYTES)
    throw new TerminalError(`sim speech: text longer than ${SIM_VOICE_MAX_BYTES} UTF-8 bytes`);
  const started = performance.now();
  let spokenMs = 0;
  for (const chunk of simVoiceChunks(text, CHUNK_BYTES)) {
    // The first chunk leaves at once; each later one when the previous would have finished playing.
    const wait = started + spokenMs - performance.now();
    if (realTime && wait > 0) {
      await sleep(wait, undefined, { signal }).catch((err: unknown) => {
        signal.throwIfAborted(); // the abort reason, as without pacing
        throw err;
      });
    }
    signal.throwIfAborted();
    yield chunk;
    spokenMs += (chunk.length / PCM16_BYTES_PER_SECOND) * 1000;
  }
}

/**
 * The embedded speech engine: the text as sim-voice tones (see sim-voice-codec.ts), which the sim
 * transcriber reads back exactly, in 100 ms chunks rendered as they are yielded. The voice and
 * language do not change the sound.
 */
export function createSimSpeechBackend(options: SimSpeechOptions = {}): SpeechBackend {
  const realTime = options.realTime ?? false;
  return { name: 'sim', synthesize: (request) => synthesize(request, realTime) };
}
