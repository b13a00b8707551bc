import type { AudioOutputFormat } from '../protocols/audio.js';

/** The shape of raw PCM16 LE audio: its rate and channels (interleaved when two). */
export interface PcmShape {
  sampleRate: number;
  channels: 1 | 2;
}

/** What to make of PCM: the container and codec, and a tempo change (1 = none). */
export interface EncodeOptions {
  format: AudioOutputFormat;
  shape: PcmShape;
  /** Playback speed, 0.25 to 4, keeping the pitch (1 when absent). */
  tempo?: number;
  signal: AbortSignal;
}

/** What to decode and how far. */
export interface DecodeOptions {
  /** Rate of the PCM16 mono returned. */
  sampleRate: number;
  /** Decoding stops a little past this; `exceeded` then says the audio is longer. */
  maxSeconds: number;
  signal: AbortSignal;
}

/** Decoded audio: PCM16 LE mono at the asked rate. */
export interface DecodedAudio {
  pcm: Buffer;
  seconds: number;
  /** The audio runs past `maxSeconds` (`pcm` holds only the start). */
  exceeded: boolean;
}

/**
 * Audio encoding and decoding through a maintained encoder (never one of ours). `encode` turns a
 * PCM16 stream into the asked format as it arrives (chunks leave as the encoder produces them);
 * `decode` reads a file in any common format (wav, mp3, flac, ogg, opus, webm, m4a, aac) to PCM16
 * mono. Undecodable input is an UnreadableMediaError; a codec that cannot run is a TerminalError
 * `upstream_unavailable`.
 */
export interface AudioCodec {
  readonly name: string;
  encode(pcm: AsyncIterable<Buffer>, options: EncodeOptions): AsyncIterable<Buffer>;
  decode(source: { path: string }, options: DecodeOptions): Promise<DecodedAudio>;
}

/** The Content-Type of each output format (`pcm` is raw 16-bit little-endian samples). */
export const AUDIO_CONTENT_TYPES: Readonly<Record<AudioOutputFormat, string>> = {
  mp3: 'audio/mpeg',
  opus: 'audio/ogg; codecs=opus',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
};
