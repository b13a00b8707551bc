import { createHash } from 'node:crypto';
import { TerminalError } from '../errors.js';
import { pcm16Bytes, pcm16Samples } from '../pcm16-samples.js';
import { PCM16_SAMPLE_RATE, type ClonedVoice, type SpeechBackend, type SpeechRequest } from '../speech.js';
import { PCM16_BYTES_PER_SECOND } from '../transcription.js';
import { UnreadableMediaError } from '../unreadable-media-error.js';
import type { VoiceCloneBackend, VoiceCloneRequest } from '../voice-clone.js';
import { throwScriptedFailure } from './sim-script.js';
import { SIM_VOICE_MAX_BYTES, simVoiceChunks } from './sim-voice-codec.js';

/** The engine name of the sim's premium tier (cloned voices). */
export const SIM_PREMIUM_ENGINE = 'sim-premium';

const CHUNK_BYTES = PCM16_BYTES_PER_SECOND / 10;
/** The voice's own tone under the sim voice: about 26 dB below the symbols, far below their band. */
const HUM_AMPLITUDE = 0.02 * 32_768;
const MIN_F0 = 70;
const MAX_F0 = 400;
/** Quieter than this (dBFS over a frame) is silence. */
const SILENCE_DBFS = -50;
const FRAME = 960; // 40 ms at 24 kHz

// Built-in voices: a speaking pitch each, low for the male ones, higher for the female ones.
const BUILTIN_F0: Readonly<Record<string, number>> = {
  alloy: 150,
  ash: 110,
  ballad: 120,
  coral: 210,
  echo: 115,
  fable: 140,
  nova: 220,
  onyx: 95,
  sage: 200,
  shimmer: 230,
  verse: 125,
  marin: 215,
  cedar: 105,
};

function rmsDbfs(x: Int16Array, from: number, to: number): number {
  let sum = 0;
  for (let n = from; n < to; n++) sum += x[n]! * x[n]!;
  return 10 * Math.log10(sum / Math.max(1, to - from) / 32_768 ** 2 + 1e-12);
}

/** The period of one frame by normalised autocorrelation, as a frequency; null when nothing repeats clearly. */
function framePitch(x: Int16Array, from: number): number | null {
  const minLag = Math.floor(PCM16_SAMPLE_RATE / MAX_F0);
  const maxLag = Math.ceil(PCM16_SAMPLE_RATE / MIN_F0);
  let best = 0;
  let bestLag = 0;
  for (let lag = minLag; lag <= maxLag; lag++) {
    let cross = 0;
    let a = 0;
    let b = 0;
    for (let n = from; n < from + FRAME - lag; n++) {
      cross += x[n]! * x[n + lag]!;
      a += x[n]! * x[n]!;
      b += x[n + lag]! * x[n + lag]!;
    }
    const score = cross / Math.sqrt(a * b + 1);
    if (score > best) [best, bestLag] = [score, lag];
  }
  return best >= 0.3 && bestLag ? PCM16_SAMPLE_RATE / bestLag : null;
}

/** Measures the samples: speaking pitch (median over voiced frames), loudness, length, fingerprint. */
export function measureVoice(samples: readonly Buffer[]): Record<string, number | string> {
  const hash = createHash('sha256');
  const pitches: number[] = [];
  let seconds = 0;
  let loudest = -Infinity;
  for (const sample of samples) {
    hash.update(sample);
    const x = pcm16Samples(sample);
    seconds += x.length / PCM16_SAMPLE_RATE;
    // At most 60 frames a sample, spread over it: plenty for a median, and a minute of samples stays fast.
    const step = Math.max(FRAME * 4, Math.floor(x.length / 60));
    for (let from = 0; from + FRAME <= x.length; from += step) {
      const level = rmsDbfs(x, from, from + FRAME);
      loudest = Math.max(loudest, level);
      if (level < SILENCE_DBFS) continue;
      const pitch = framePitch(x, from);
      if (pitch !== null) pitches.push(pitch);
    }
  }
  if (loudest < SILENCE_DBFS) throw new UnreadableMediaError('the samples hold no sound (silence throughout)');
  const fingerprint = hash.digest('hex');
  pitches.sort((a, b) => a - b);
  // Sound with no clear period (noise, whispers): a pitch from the fingerprint, so it stays stable.
  const f0 = pitches.length
    ? pitches[Math.floor(pitches.length / 2)]!
    : MIN_F0 + (parseInt(fingerprint.slice(0, 4), 16) % (MAX_F0 - MIN_F0));
  return {
    f0_hz: Math.round(f0 * 10) / 10,
    level_dbfs: Math.round(loudest * 10) / 10,
    seconds: Math.round(seconds * 1000) / 1000,
    fingerprint: fingerprint.slice(0, 32),
  };
}

function pitchOf(request: SpeechRequest): number {
  const cloned = request.clonedVoice;
  if (cloned && typeof cloned.profile.f0_hz === 'number') return cloned.profile.f0_hz;
  return BUILTIN_F0[request.voice.toLowerCase()] ?? 150;
}

async function* synthesize(request: SpeechRequest): AsyncGenerator<Buffer, void, undefined> {
  request.signal.throwIfAborted();
  throwScriptedFailure(request.metadata);
  if (request.clonedVoice && request.clonedVoice.engine !== SIM_PREMIUM_ENGINE) {
    throw new TerminalError(
      `sim-premium speech: voice ${request.clonedVoice.id} was cloned by ${request.clonedVoice.engine}`,
    );
  }
  if (!request.text) return;
  if (Buffer.byteLength(request.text, 'utf8') > SIM_VOICE_MAX_BYTES)
    throw new TerminalError(`sim-premium speech: text longer than ${SIM_VOICE_MAX_BYTES} UTF-8 bytes`);
  const omega = (2 * Math.PI * pitchOf(request)) / PCM16_SAMPLE_RATE;
  let n = 0;
  for (const chunk of simVoiceChunks(request.text, CHUNK_BYTES)) {
    const x = Int16Array.from(pcm16Samples(chunk));
    for (let i = 0; i < x.length; i++, n++)
      x[i] = Math.max(-32_768, Math.min(32_767, Math.round(x[i]! + HUM_AMPLITUDE * Math.sin(omega * n))));
    request.signal.throwIfAborted();
    yield pcm16Bytes(x);
    // Rendering is synchronous: give the event loop a turn between chunks.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * The sim's premium speech: the sim voice (which the sim transcriber reads back exactly) over a
 * quiet tone at the voice's speaking pitch, the cloned voice's measured pitch or a built-in
 * voice's own. The tone sits far below the sim voice's band, so transcripts are unchanged.
 */
export function createSimPremiumSpeechBackend(): SpeechBackend {
  return { name: SIM_PREMIUM_ENGINE, synthesize };
}

async function clone(request: VoiceCloneRequest): Promise<Omit<ClonedVoice, 'id'>> {
  request.signal.throwIfAborted();
  throwScriptedFailure(request.metadata);
  await new Promise((resolve) => setImmediate(resolve));
  return { engine: SIM_PREMIUM_ENGINE, profile: measureVoice(request.samples) };
}

/** The sim's voice cloner: measures the samples' speaking pitch and loudness into a profile its premium speech uses. */
export function createSimVoiceCloneBackend(): VoiceCloneBackend {
  return { name: SIM_PREMIUM_ENGINE, clone };
}
