/** Server VAD settings, as the session's `turn_detection` gives them. */
export interface VadSettings {
  /** 0..1: how loud a frame must be to count as speech (0.5 ≈ −37 dBFS). */
  threshold: number;
  /** Audio kept before the speech start, so the first syllable is not cut. */
  prefixPaddingMs: number;
  /** Unvoiced time that ends a turn. */
  silenceDurationMs: number;
}

/** What the VAD saw, in audio milliseconds since the first byte it was fed. */
export type VadEvent = { type: 'speech_started'; audioStartMs: number } | { type: 'speech_stopped'; audioEndMs: number; audio: Buffer };

const SAMPLES_PER_MS = 24;
const FRAME_MS = 10;
const FRAME_BYTES = SAMPLES_PER_MS * FRAME_MS * 2;
/** Speech starts after this many voiced frames within the last START_WINDOW frames (clicks do not count). */
const START_VOICED = 3;
const START_WINDOW = 5;
/** Trailing silence kept at the end of a turn's audio. */
const TAIL_MS = 100;
/** A turn longer than this is cut, so memory stays bounded whatever the client sends. */
const MAX_TURN_MS = 15 * 60_000;

/** Duration of `bytes` of PCM16 at 24 kHz, in ms. */
export function pcmDurationMs(bytes: number): number {
  return bytes / (SAMPLES_PER_MS * 2);
}

/** RMS level of `samples` 16-bit samples of `pcm` from byte `offset`, in dBFS (−100 for silence). */
export function rmsDbfs(pcm: Buffer, offset: number, samples: number): number {
  let sum = 0;
  const start = pcm.byteOffset + offset;
  if (start % 2 === 0) {
    // Aligned (frames copied out of the pool always are): read samples straight from memory
    // (PCM16 is little-endian, as every host Node runs on here).
    const view = new Int16Array(pcm.buffer, start, samples);
    for (let i = 0; i < samples; i++) sum += view[i]! * view[i]!;
  } else {
    for (let i = 0; i < samples; i++) {
      const value = pcm.readInt16LE(offset + i * 2);
      sum += value * value;
    }
  }
  const rms = Math.sqrt(sum / samples) / 32768;
  return rms > 0 ? Math.max(-100, 20 * Math.log10(rms)) : -100;
}

/** Maps a frame's level onto 0..1: −60 dBFS and below is 0, −15 dBFS and above is 1. */
function speechProbability(dbfs: number): number {
  return Math.min(1, Math.max(0, (dbfs + 60) / 45));
}

/**
 * Energy-based voice activity detection over PCM16 24 kHz, in 10 ms frames. Pure: it is driven
 * by the audio it is fed and keeps time in audio milliseconds. While idle it keeps only the last
 * `prefixPaddingMs` (a bounded ring of frames); during a turn it collects frames and hands the
 * whole turn over at the stop, padded before and with up to 100 ms of the trailing silence.
 */
export class EnergyVad {
  private settings: VadSettings;
  /** Bytes not yet making a whole frame. */
  private partial: Buffer = Buffer.alloc(0);
  private frames = 0;
  /** Idle: the ring of recent frames (the prefix padding and the voiced run being confirmed). */
  private recent: Buffer[] = [];
  private recentVoiced: boolean[] = [];
  /** In a turn: its frames so far. */
  private turn: Buffer[] | null = null;
  private turnStartFrame = 0;
  private lastVoicedFrame = 0;
  private silentFrames = 0;

  constructor(settings: VadSettings) {
    this.settings = { ...settings };
  }

  /** New settings take effect from the next frame. */
  update(settings: VadSettings): void {
    this.settings = { ...settings };
  }

  /** Audio fed so far, in ms. */
  get positionMs(): number {
    return this.frames * FRAME_MS + pcmDurationMs(this.partial.length);
  }

  /** Whether a turn is in progress. */
  get speaking(): boolean {
    return this.turn !== null;
  }

  /** Feeds audio (any length, frames may straddle calls) and returns what it detected. */
  push(pcm: Buffer): VadEvent[] {
    const events: VadEvent[] = [];
    let data = this.partial.length ? Buffer.concat([this.partial, pcm]) : pcm;
    let offset = 0;
    while (data.length - offset >= FRAME_BYTES) {
      // Frames are copied out: the caller's buffer may be reused, and turns outlive it.
      const frame = Buffer.from(data.subarray(offset, offset + FRAME_BYTES));
      offset += FRAME_BYTES;
      const event = this.frame(frame);
      if (event) events.push(event);
    }
    data = data.subarray(offset);
    this.partial = Buffer.from(data);
    return events;
  }

  /** Drops all buffered audio (input_audio_buffer.clear); a turn in progress is forgotten. */
  reset(): void {
    this.partial = Buffer.alloc(0);
    this.recent = [];
    this.recentVoiced = [];
    this.turn = null;
    this.silentFrames = 0;
  }

  /** The audio of the turn in progress (or the idle padding) for a manual commit; then resets. */
  flush(): Buffer {
    const audio = Buffer.concat([...(this.turn ?? this.recent), this.partial]);
    this.reset();
    return audio;
  }

  private frame(frame: Buffer): VadEvent | null {
    const index = this.frames++;
    const voiced = speechProbability(rmsDbfs(frame, 0, FRAME_BYTES / 2)) > this.settings.threshold;
    if (this.turn) return this.inTurn(frame, index, voiced);
    this.recent.push(frame);
    this.recentVoiced.push(voiced);
    const padding = Math.ceil(this.settings.prefixPaddingMs / FRAME_MS);
    const keep = Math.max(padding + START_WINDOW, START_WINDOW);
    if (this.recent.length > keep) {
      this.recent.shift();
      this.recentVoiced.shift();
    }
    const window = this.recentVoiced.slice(-START_WINDOW);
    if (window.filter(Boolean).length < START_VOICED) return null;
    // Speech began at the first voiced frame of the window; the turn keeps the padding before it.
    const firstVoiced = window.indexOf(true);
    const startIndex = index - (window.length - 1) + firstVoiced;
    const startAt = this.recent.length - (index - startIndex) - 1;
    this.turn = this.recent.slice(Math.max(0, startAt - padding));
    this.recent = [];
    this.recentVoiced = [];
    this.turnStartFrame = startIndex;
    this.lastVoicedFrame = index;
    this.silentFrames = 0;
    return { type: 'speech_started', audioStartMs: startIndex * FRAME_MS };
  }

  private inTurn(frame: Buffer, index: number, voiced: boolean): VadEvent | null {
    const turn = this.turn!;
    turn.push(frame);
    if (voiced) {
      this.lastVoicedFrame = index;
      this.silentFrames = 0;
    } else this.silentFrames++;
    const tooLong = (index - this.turnStartFrame) * FRAME_MS >= MAX_TURN_MS;
    if (this.silentFrames * FRAME_MS < this.settings.silenceDurationMs && !tooLong) return null;
    // Keep at most TAIL_MS of the trailing silence: the transcriber needs no more.
    const drop = Math.max(0, this.silentFrames - TAIL_MS / FRAME_MS);
    const audio = Buffer.concat(turn.slice(0, turn.length - drop));
    this.turn = null;
    this.silentFrames = 0;
    return { type: 'speech_stopped', audioEndMs: (this.lastVoicedFrame + 1) * FRAME_MS, audio };
  }
}
