import type { AudioOutputFormat } from '../../protocols/audio.js';
import type { AudioCodec, DecodedAudio, DecodeOptions, EncodeOptions, PcmShape } from '../audio-codec.js';
import { TerminalError } from '../errors.js';
import { FfmpegError, runFfmpeg } from '../ffmpeg/ffmpeg.js';
import { UnreadableMediaError } from '../unreadable-media-error.js';

/** Bitrates of the lossy formats: speech-grade for mono, music-grade for stereo. */
function bitrate(format: 'mp3' | 'opus' | 'aac', shape: PcmShape): string {
  const stereo = shape.channels === 2;
  if (format === 'opus') return stereo ? '96k' : '32k';
  if (format === 'aac') return stereo ? '160k' : '64k';
  // MPEG-2 layer III (rates under 32 kHz) tops out at 160 kbit/s.
  return stereo ? '192k' : shape.sampleRate < 32_000 ? '64k' : '96k';
}

/** ffmpeg's output options for a format: codec, bitrate, container. */
function outputArgs(format: AudioOutputFormat, shape: PcmShape): string[] {
  switch (format) {
    case 'mp3':
      return ['-c:a', 'libmp3lame', '-b:a', bitrate('mp3', shape), '-f', 'mp3'];
    case 'opus':
      return ['-c:a', 'libopus', '-b:a', bitrate('opus', shape), '-f', 'ogg'];
    case 'aac':
      return ['-c:a', 'aac', '-b:a', bitrate('aac', shape), '-f', 'adts'];
    case 'flac':
      return ['-c:a', 'flac', '-f', 'flac'];
    case 'wav':
      return ['-c:a', 'pcm_s16le', '-f', 'wav'];
    case 'pcm':
      return ['-c:a', 'pcm_s16le', '-f', 's16le'];
  }
}

/** atempo takes 0.5 to 100 per instance: slower tempos are a chain of halvings. */
export function atempoChain(tempo: number): string {
  const steps: number[] = [];
  let rest = tempo;
  while (rest < 0.5) {
    steps.push(0.5);
    rest /= 0.5;
  }
  steps.push(rest);
  return steps.map((step) => `atempo=${Number(step.toFixed(6))}`).join(',');
}

/** The ffmpeg arguments that encode PCM16 of `shape` on stdin to `format` on stdout. */
export function encodeArgs(format: AudioOutputFormat, shape: PcmShape, tempo = 1): string[] {
  const input = ['-f', 's16le', '-ar', String(shape.sampleRate), '-ac', String(shape.channels), '-i', 'pipe:0'];
  const filter = tempo === 1 ? [] : ['-filter:a', atempoChain(tempo)];
  // Bit-exact, metadata-free output: the same audio always encodes to the same bytes, and no
  // encoder version leaks into the file. Packets are flushed as made, so the first bytes leave early.
  const exact = ['-map_metadata', '-1', '-fflags', '+bitexact', '-flags:a', '+bitexact', '-flush_packets', '1'];
  return [
    ...input,
    ...filter,
    ...exact,
    '-ar',
    String(shape.sampleRate),
    '-ac',
    String(shape.channels),
    ...outputArgs(format, shape),
    'pipe:1',
  ];
}

function asCodecError(err: unknown, what: string): Error {
  if (err instanceof FfmpegError && err.kind === 'missing')
    return new TerminalError(`audio ${what}: ${err.message}`, 'upstream_unavailable', { cause: err });
  if (err instanceof FfmpegError)
    return new TerminalError(`audio ${what} failed: ${err.message}`, 'upstream_error', { cause: err });
  return err instanceof Error ? err : new Error(String(err));
}

async function* encode(pcm: AsyncIterable<Buffer>, options: EncodeOptions): AsyncGenerator<Buffer, void, undefined> {
  const tempo = options.tempo ?? 1;
  // Raw PCM at its own speed needs no encoder at all.
  if (options.format === 'pcm' && tempo === 1) {
    for await (const chunk of pcm) {
      options.signal.throwIfAborted();
      if (chunk.length) yield chunk;
    }
    return;
  }
  // The runner ends ffmpeg's stdin when its input fails, and ffmpeg then finishes cleanly: the
  // source's failure is kept here and thrown, so a broken engine never looks like a short answer.
  const failed: { error?: unknown } = {};
  const watched = (async function* () {
    try {
      yield* pcm;
    } catch (err) {
      failed.error = err;
      throw err;
    }
  })();
  try {
    for await (const chunk of runFfmpeg(encodeArgs(options.format, options.shape, tempo), {
      input: watched,
      signal: options.signal,
    })) {
      if ('error' in failed) break;
      yield chunk;
    }
  } catch (err) {
    options.signal.throwIfAborted();
    if ('error' in failed) throw failed.error;
    throw asCodecError(err, 'encoding');
  }
  options.signal.throwIfAborted();
  if ('error' in failed) throw failed.error;
}

/** How much past `maxSeconds` is decoded, to tell "exactly the limit" from "longer". */
const OVERRUN_SECONDS = 0.5;

async function decode(source: { path: string }, options: DecodeOptions): Promise<DecodedAudio> {
  const args = [
    '-i',
    source.path,
    '-vn',
    '-sn',
    '-dn',
    '-t',
    String(options.maxSeconds + OVERRUN_SECONDS),
    '-ac',
    '1',
    '-ar',
    String(options.sampleRate),
    '-c:a',
    'pcm_s16le',
    '-f',
    's16le',
    'pipe:1',
  ];
  const chunks: Buffer[] = [];
  let bytes = 0;
  try {
    for await (const chunk of runFfmpeg(args, { signal: options.signal })) {
      chunks.push(chunk);
      bytes += chunk.length;
    }
  } catch (err) {
    options.signal.throwIfAborted();
    if (err instanceof FfmpegError && err.kind === 'failed')
      throw new UnreadableMediaError(`the audio could not be decoded (${lastLine(err.message)})`, { cause: err });
    throw asCodecError(err, 'decoding');
  }
  const whole = Buffer.concat(chunks, bytes);
  const pcm = whole.subarray(0, whole.length - (whole.length % 2));
  const seconds = pcm.length / 2 / options.sampleRate;
  const limit = Math.round(options.maxSeconds * options.sampleRate) * 2;
  return seconds > options.maxSeconds
    ? { pcm: pcm.subarray(0, limit), seconds: options.maxSeconds, exceeded: true }
    : { pcm, seconds, exceeded: false };
}

/** The most telling line of ffmpeg's complaint, without the input's path. */
function lastLine(message: string): string {
  const lines = message
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const line = lines.at(-1) ?? 'no message';
  return line.replace(/^.*?(\/[^\s:]+)+:\s*/, '').slice(0, 200);
}

/** The audio codec on the shared ffmpeg runner (Debian's ffmpeg with libmp3lame, libopus, aac, flac). */
export function createFfmpegAudioCodec(): AudioCodec {
  return { name: 'ffmpeg', encode, decode };
}
