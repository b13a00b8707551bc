// Energy-based server VAD for realtime input audio: PCM16 little-endian mono at 24 kHz.
// Pure: no timers, no I/O. Time is audio time, measured in the bytes it is fed.

import {
  BYTES_PER_MS,
  FRAME_BYTES,
  FRAME_MS,
  FRAME_SAMPLES,
  FrameRing,
  PcmCollector,
  releaseTurnAudio,
} from './vad-audio.js';

/** Server VAD knobs, as in the realtime session's `turn_detection` (`server_vad`). */
export interface VadSettings {
  /** 0..1: a 10 ms frame is voiced when its {@link speechProbability} is above this (0.5 ≈ −37.5 dBFS). */
  threshold: number;
  /** Audio kept from before the start of speech and put at the front of the turn. */
  prefixPaddingMs: number;
  /** Consecutive unvoiced audio that ends a turn. */
  silenceDurationMs: number;
}

/**
 * What the VAD noticed in the audio just pushed. Times are audio milliseconds since the VAD was
 * created (they keep counting across `reset`, like the session's audio timeline).
 */
export type VadEvent =
  | {
      type: 'speech_started';
      /** Where speech itself began (the first voiced frame of the onset run). */
      audioStartMs: number;
      /** Where this turn's audio begins: `audioStartMs` less the prefix padding that was available. */
      turnStartMs: number;
    }
  | {
      type: 'speech_stopped';
      /** Where speech ended: the end of the last voiced frame. */
      audioEndMs: number;
      /** Where this turn's audio ends: `audioEndMs` plus the trailing silence kept. */
      turnEndMs: number;
      /**
       * The whole turn: prefix padding, speech, and at most {@link TRAILING_SILENCE_MS} of silence.
       * Lent: whoever reads it last gives it back with `releaseTurnAudio` (or drops it).
       */
      audio: Buffer;
    };

/** The settings OpenAI's `server_vad` uses when the session names none. */
export const DEFAULT_VAD_SETTINGS: Readonly<VadSettings> = {
  threshold: 0.5,
  prefixPaddingMs: 300,
  silenceDurationMs: 500,
};

/**
 * Silence kept after the last voiced frame when a turn stops: enough for soft word endings that
 * fall under the threshold, without handing the transcriber the dead air it tends to invent text for.
 */
export const TRAILING_SILENCE_MS = 300;

/** Longest turn: speech running this long is stopped so one turn's memory stays bounded (~43 MB). */
export const MAX_TURN_MS = 15 * 60_000;

// Speech starts after 3 voiced frames out of the last 5 (30 of 50 ms): a click is one or two.
const ONSET_WINDOW_FRAMES = 5;
const ONSET_VOICED_FRAMES = 3;
const FULL_SCALE_DB = 20 * Math.log10(32768);
const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Duration of `bytes` of 24 kHz PCM16 mono audio, in milliseconds (not rounded). */
export function pcmDurationMs(bytes: number): number {
  return bytes / BYTES_PER_MS;
}

/** The level reported for digital silence: below anything 16-bit audio can carry (about −90 dBFS). */
export const SILENCE_DBFS = -100;

/**
 * Samples of the ArrayBuffer audio was last read from, one view per buffer rather than one per
 * frame (a typed-array view is an allocation, and frames come 100 a second per call): the edge
 * decodes every frame into the same buffer. One for the whole module: it keeps at most one buffer
 * alive, whatever the number of calls.
 */
let viewed: ArrayBufferLike | null = null;
let viewedSamples: Int16Array<ArrayBufferLike> = new Int16Array(0);

function samplesOf(buffer: ArrayBufferLike): Int16Array<ArrayBufferLike> {
  if (buffer !== viewed) {
    viewed = buffer;
    viewedSamples = new Int16Array(buffer, 0, buffer.byteLength >> 1);
  }
  return viewedSamples;
}

/**
 * RMS level of `samples` PCM16LE samples starting at byte `offset`, in dBFS relative to a
 * full-scale square wave (a full-scale sine is about −3 dBFS), never below {@link SILENCE_DBFS}.
 */
export function rmsDbfs(pcm: Buffer, offset: number, samples: number): number {
  let sum = 0;
  const start = pcm.byteOffset + offset;
  if (LITTLE_ENDIAN_HOST && start % 2 === 0 && offset + samples * 2 <= pcm.length) {
    // Aligned samples (every frame the VAD reads is) are read straight from memory.
    const view = samplesOf(pcm.buffer);
    const first = start >> 1;
    for (let i = 0; i < samples; i++) {
      const sample = view[first + i]!;
      sum += sample * sample;
    }
  } else {
    for (let i = 0; i < samples; i++) {
      const sample = pcm.readInt16LE(offset + 2 * i);
      sum += sample * sample;
    }
  }
  if (sum === 0 || samples <= 0) return SILENCE_DBFS;
  return Math.max(SILENCE_DBFS, 10 * Math.log10(sum / samples) - FULL_SCALE_DB);
}

/** Maps a frame level to a 0..1 speech probability: −60 dBFS and below is 0, −15 dBFS and above is 1. */
export function speechProbability(dbfs: number): number {
  return Math.min(1, Math.max(0, (dbfs + 60) / 45));
}

interface Speech {
  audio: PcmCollector;
  /** Session byte offset where `audio` begins. */
  startByte: number;
  /** Session byte offset where the last voiced frame ended. */
  lastVoicedEnd: number;
  unvoicedFrames: number;
}

/**
 * The last ONSET_WINDOW_FRAMES frames heard while idle: whether each was voiced and where it
 * started, in fixed slots (one frame every 10 ms per call: nothing allocated for it).
 */
class OnsetWindow {
  private readonly voiced = new Uint8Array(ONSET_WINDOW_FRAMES);
  private readonly starts = new Float64Array(ONSET_WINDOW_FRAMES);
  private next = 0;
  private count = 0;
  voicedCount = 0;

  push(voiced: boolean, startByte: number): void {
    if (this.count === ONSET_WINDOW_FRAMES) this.voicedCount -= this.voiced[this.next]!;
    else this.count++;
    this.voiced[this.next] = voiced ? 1 : 0;
    this.starts[this.next] = startByte;
    this.voicedCount += voiced ? 1 : 0;
    this.next = (this.next + 1) % ONSET_WINDOW_FRAMES;
  }

  /** Where the oldest voiced frame in the window starts (-1 when none is voiced). */
  firstVoicedStart(): number {
    for (let i = 0; i < this.count; i++) {
      const slot = (this.next - this.count + i + ONSET_WINDOW_FRAMES) % ONSET_WINDOW_FRAMES;
      if (this.voiced[slot]) return this.starts[slot]!;
    }
    return -1;
  }

  clear(): void {
    this.next = 0;
    this.count = 0;
    this.voicedCount = 0;
  }
}

const roundMs = (bytes: number) => Math.round(pcmDurationMs(bytes));

/** A push that noticed nothing (most of them) returns this rather than a new empty array. */
const NO_EVENTS: readonly VadEvent[] = Object.freeze([]);

/**
 * Energy-based voice activity detection over 10 ms frames. Feed it audio with {@link push}; it
 * reports the start and end of each turn, and hands back the turn's audio when speech stops.
 * While idle it keeps only the last `prefixPaddingMs` (plus the 50 ms onset window) of audio.
 */
export class EnergyVad {
  private settings: VadSettings;
  private prefixFrames = 0;
  private silenceFrames = 1;
  private fedBytes = 0;
  /** Bytes analysed as frames or dropped; `fedBytes - consumedBytes` wait in `partial`. */
  private consumedBytes = 0;
  private readonly partial = Buffer.alloc(FRAME_BYTES);
  private partialBytes = 0;
  private readonly ring: FrameRing;
  private readonly onset = new OnsetWindow();
  private speech: Speech | null = null;
  /** Where the frames of the push in progress that are not kept yet begin (see {@link keep}). */
  private keepFrom = 0;
  /** What the push in progress noticed (NO_EVENTS until it notices something). */
  private events: readonly VadEvent[] = NO_EVENTS;

  constructor(settings: VadSettings) {
    this.settings = { ...settings };
    this.applySettings();
    this.ring = new FrameRing(this.prefixFrames + ONSET_WINDOW_FRAMES);
  }

  /** Audio milliseconds fed so far, across resets (not rounded). */
  get positionMs(): number {
    return pcmDurationMs(this.fedBytes);
  }

  /** Whether a turn is in progress (speech started and has not stopped). */
  get speaking(): boolean {
    return this.speech !== null;
  }

  /** Applies new settings from the next frame on; a turn in progress keeps its audio. */
  update(settings: VadSettings): void {
    this.settings = { ...settings };
    this.applySettings();
    this.ring.resize(this.prefixFrames + ONSET_WINDOW_FRAMES);
  }

  /**
   * Feeds PCM16LE audio of any length (partial frames and odd bytes carry over to the next push),
   * read in place: what is kept of it is copied. Returns what it noticed (most pushes: nothing,
   * and then no array is made).
   */
  push(pcm: Buffer): readonly VadEvent[] {
    this.events = NO_EVENTS;
    this.fedBytes += pcm.length;
    let at = 0;
    if (this.partialBytes > 0) {
      at = pcm.copy(this.partial, this.partialBytes, 0, Math.min(pcm.length, FRAME_BYTES - this.partialBytes));
      this.partialBytes += at;
      if (this.partialBytes < FRAME_BYTES) return this.events;
      this.partialBytes = 0;
      this.keepFrom = 0;
      this.analyse(this.partial, 0);
      this.keep(this.partial, FRAME_BYTES);
    }
    this.keepFrom = at;
    for (; at + FRAME_BYTES <= pcm.length; at += FRAME_BYTES) this.analyse(pcm, at);
    this.keep(pcm, at);
    if (at < pcm.length) this.partialBytes = pcm.copy(this.partial, 0, at);
    const events = this.events;
    this.events = NO_EVENTS;
    return events;
  }

  /** Drops all buffered audio, in or out of a turn (`input_audio_buffer.clear`); no event is reported. */
  reset(): void {
    this.consumedBytes += this.partialBytes; // keeps later frame times on the session timeline
    this.partialBytes = 0;
    this.speech?.audio.release();
    this.speech = null;
    this.onset.clear();
    this.ring.clear();
  }

  /**
   * The audio buffered now, for a manual commit: the turn so far while speaking, otherwise the
   * idle padding (at most `prefixPaddingMs` + 50 ms), plus any partial frame. Then {@link reset}s.
   */
  flush(): Buffer {
    const buffered = this.speech ? this.speech.audio.lend() : this.ring.newest(Infinity);
    const audio = Buffer.concat([buffered, this.partial.subarray(0, this.partialBytes)]);
    releaseTurnAudio(buffered);
    this.reset();
    return audio;
  }

  private applySettings(): void {
    this.prefixFrames = Math.max(0, Math.ceil(this.settings.prefixPaddingMs / FRAME_MS));
    this.silenceFrames = Math.max(1, Math.ceil(this.settings.silenceDurationMs / FRAME_MS));
  }

  /**
   * Keeps the frames of `source` from `keepFrom` to `end`: in the turn while speaking, in the
   * idle ring otherwise. Frames are kept in runs (a push's frames in one copy, not one per frame),
   * so a run is kept before speech starts or stops.
   */
  private keep(source: Buffer, end: number): void {
    if (end > this.keepFrom) {
      if (this.speech) this.speech.audio.append(source, this.keepFrom, end);
      else this.ring.push(source, this.keepFrom, end);
    }
    this.keepFrom = end;
  }

  /** The 10 ms frame at byte `offset` of `pcm` (read in place; kept by {@link keep}). */
  private analyse(pcm: Buffer, offset: number): void {
    const startByte = this.consumedBytes;
    this.consumedBytes += FRAME_BYTES;
    const voiced = speechProbability(rmsDbfs(pcm, offset, FRAME_SAMPLES)) > this.settings.threshold;
    if (this.speech) return this.continueSpeech(this.speech, pcm, offset, voiced);

    this.onset.push(voiced, startByte);
    if (!voiced || this.onset.voicedCount < ONSET_VOICED_FRAMES) return;

    this.keep(pcm, offset + FRAME_BYTES);
    const speechStart = this.onset.firstVoicedStart();
    const speechFrames = (this.consumedBytes - speechStart) / FRAME_BYTES;
    const audio = new PcmCollector();
    this.ring.appendNewest(speechFrames + this.prefixFrames, audio);
    this.speech = {
      audio,
      startByte: this.consumedBytes - audio.length,
      lastVoicedEnd: this.consumedBytes,
      unvoicedFrames: 0,
    };
    this.ring.clear();
    this.onset.clear();
    this.notice({
      type: 'speech_started',
      audioStartMs: roundMs(speechStart),
      turnStartMs: roundMs(this.speech.startByte),
    });
  }

  private continueSpeech(speech: Speech, pcm: Buffer, offset: number, voiced: boolean): void {
    if (voiced) {
      speech.unvoicedFrames = 0;
      speech.lastVoicedEnd = this.consumedBytes;
    } else {
      speech.unvoicedFrames++;
    }
    const end = offset + FRAME_BYTES;
    if (speech.unvoicedFrames >= this.silenceFrames) {
      this.keep(pcm, end);
      this.notice(this.stop(speech, speech.lastVoicedEnd + TRAILING_SILENCE_MS * BYTES_PER_MS));
    } else if (speech.audio.length + (end - this.keepFrom) >= MAX_TURN_MS * BYTES_PER_MS) {
      this.keep(pcm, end);
      this.notice(this.stop(speech, this.consumedBytes));
    }
  }

  private notice(event: VadEvent): void {
    this.events = this.events === NO_EVENTS ? [event] : [...this.events, event];
  }

  /** Ends the turn, keeping its audio up to session byte `endByte`. */
  private stop(speech: Speech, endByte: number): VadEvent {
    const audio = speech.audio.lend(Math.min(endByte, this.consumedBytes) - speech.startByte);
    this.speech = null;
    return {
      type: 'speech_stopped',
      audioEndMs: roundMs(speech.lastVoicedEnd),
      turnEndMs: roundMs(speech.startByte + audio.length),
      audio,
    };
  }
}
