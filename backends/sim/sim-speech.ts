import { TerminalError } from '../errors.js';
import type { SpeechBackend, SpeechRequest } from '../speech.js';
import { PCM16_BYTES_PER_SECOND } from '../transcription.js';
import { simPacer, type PacedWaiter, type SimPacer } from './sim-pacer.js';
import { throwScriptedFailure } from './sim-script.js';
import { SIM_VOICE_MAX_BYTES, simVoiceChunks } from './sim-voice-codec.js';
import type { SimVoicePool } from './sim-voice-pool.js';

/** 100 ms of PCM16 at 24 kHz: the sim's unit of output. */
const CHUNK_BYTES = PCM16_BYTES_PER_SECOND / 10;

/** How the sim speaks. */
export interface SimSpeechOptions {
  /** Pace chunks at playback speed, as a real engine streaming live would (default false: instant). */
  realTime?: boolean;
  /** Render on these worker threads instead of the event loop (the same sound). */
  pool?: SimVoicePool | null;
}

/** `pcm` in chunks of `bytes` (the last may be shorter). */
function* chunksOf(pcm: Buffer, bytes: number): Generator<Buffer, void, undefined> {
  for (let at = 0; at < pcm.length; at += bytes) yield pcm.subarray(at, at + bytes);
}

/**
 * A paced stream's waits on the shared pacer: one timer per due millisecond for all streams, and
 * one abort listener per stream (not a timer, a listener and a rejection per chunk). An aborted
 * wait rejects with the signal's reason at once; the pacer's later wake-up finds nothing waiting.
 */
class PacedWaits implements PacedWaiter {
  private pending: { resolve: () => void; reject: (err: unknown) => void } | null = null;
  private listening = false;

  constructor(
    private readonly signal: AbortSignal,
    private readonly pacer: SimPacer,
  ) {}

  /** Resolves once `ms` have passed; rejects with the abort reason when the signal fires first. */
  wait(ms: number): Promise<void> {
    this.signal.throwIfAborted();
    if (!this.listening) {
      this.listening = true;
      this.signal.addEventListener('abort', this);
    }
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.pacer.wait(ms, this);
    });
  }

  wake(): void {
    const pending = this.pending;
    this.pending = null;
    pending?.resolve();
  }

  /** The signal fired. */
  handleEvent(): void {
    const pending = this.pending;
    this.pending = null;
    pending?.reject(this.signal.reason);
  }

  /** The stream is over: stop listening. */
  done(): void {
    if (this.listening) this.signal.removeEventListener('abort', this);
    this.listening = false;
  }
}

async function* synthesize(
  { text, signal, metadata }: SpeechRequest,
  realTime: boolean,
  pool: SimVoicePool | null,
): AsyncGenerator<Buffer, void, undefined> {
  signal.throwIfAborted();
  throwScriptedFailure(metadata);
  if (!text) return;
  if (Buffer.byteLength(text, 'utf8') > SIM_VOICE_MAX_BYTES)
    throw new TerminalError(`sim speech: text longer than ${SIM_VOICE_MAX_BYTES} UTF-8 bytes`);
  const chunks = pool ? chunksOf(await pool.speak(text, signal), CHUNK_BYTES) : simVoiceChunks(text, CHUNK_BYTES);
  const waits = realTime ? new PacedWaits(signal, simPacer) : null;
  const started = performance.now();
  let spokenMs = 0;
  try {
    for (const chunk of chunks) {
      // The first chunk leaves at once; each later one when the previous would have finished playing.
      const wait = started + spokenMs - performance.now();
      if (waits && wait > 0) await waits.wait(wait);
      signal.throwIfAborted();
      yield chunk;
      spokenMs += (chunk.length / PCM16_BYTES_PER_SECOND) * 1000;
    }
  } finally {
    waits?.done();
  }
}

/**
 * The embedded speech engine: the text as sim-voice tones (see sim-voice-codec.ts), which the sim
 * transcriber reads back exactly, in 100 ms chunks rendered as they are yielded. The voice and
 * language do not change the sound.
 */
export function createSimSpeechBackend(options: SimSpeechOptions = {}): SpeechBackend {
  const realTime = options.realTime ?? false;
  const pool = options.pool ?? null;
  return { name: 'sim', synthesize: (request) => synthesize(request, realTime, pool) };
}
