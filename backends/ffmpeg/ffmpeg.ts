import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findBinary } from '../local/find-binary.js';

/** Why ffmpeg or ffprobe could not do what was asked: not installed, or the input did not decode. */
export class FfmpegError extends Error {
  override name = 'FfmpegError';
  constructor(
    message: string,
    readonly kind: 'missing' | 'failed',
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Where ffmpeg and ffprobe are, or null when this machine has none. */
export function ffmpegPaths(): { ffmpeg: string; ffprobe: string } | null {
  const ffmpeg = findBinary('ffmpeg');
  const ffprobe = findBinary('ffprobe');
  return ffmpeg && ffprobe ? { ffmpeg, ffprobe } : null;
}

function toolPath(tool: 'ffmpeg' | 'ffprobe'): string {
  const paths = ffmpegPaths();
  if (!paths) throw new FfmpegError('ffmpeg is not installed on this server', 'missing');
  return paths[tool];
}

/** How much of ffmpeg's stderr is kept for an error message. */
const STDERR_TAIL = 2000;

/**
 * Runs ffmpeg with `args` (which should read `pipe:0` when `input` is given and write `pipe:1`),
 * feeding `input` to its stdin with backpressure and yielding its stdout as it comes. Rejects with
 * a `FfmpegError` (`failed`, with the tail of stderr) when ffmpeg exits non-zero; aborting
 * `signal` kills it.
 */
export async function* runFfmpeg(
  args: readonly string[],
  options: { input?: Buffer | AsyncIterable<Buffer>; signal?: AbortSignal } = {},
): AsyncGenerator<Buffer, void, undefined> {
  const child = spawn(toolPath('ffmpeg'), ['-hide_banner', '-loglevel', 'error', '-nostdin', ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL)));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', (err) =>
      reject(new FfmpegError(`ffmpeg could not start: ${err.message}`, 'missing', { cause: err })),
    );
    child.once('close', (code) => resolve(code));
  });
  const kill = () => child.kill('SIGKILL');
  options.signal?.addEventListener('abort', kill, { once: true });
  // A closed stdin (ffmpeg stopped reading) is not our failure: the exit code tells.
  child.stdin.on('error', () => {});
  const feeding = feed(child.stdin, options.input);
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) yield chunk;
    await feeding;
    const code = await exited;
    options.signal?.throwIfAborted();
    if (code !== 0) throw new FfmpegError(`ffmpeg failed (exit ${code}): ${stderr.trim() || 'no message'}`, 'failed');
  } finally {
    options.signal?.removeEventListener('abort', kill);
    if (child.exitCode === null && child.signalCode === null) kill();
  }
}

async function feed(stdin: NodeJS.WritableStream, input: Buffer | AsyncIterable<Buffer> | undefined): Promise<void> {
  if (input === undefined) {
    stdin.end();
    return;
  }
  try {
    if (Buffer.isBuffer(input)) {
      stdin.end(input);
      return;
    }
    for await (const chunk of input) {
      if (!stdin.write(chunk)) await new Promise((resolve) => stdin.once('drain', resolve));
    }
    stdin.end();
  } catch {
    stdin.end();
  }
}

/** Runs ffmpeg to completion and returns its whole output. */
export async function ffmpegToBuffer(
  args: readonly string[],
  options: { input?: Buffer | AsyncIterable<Buffer>; signal?: AbortSignal } = {},
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of runFfmpeg(args, options)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** What ffprobe says of a media file: its format, duration and streams. */
export interface ProbeResult {
  formatName: string;
  durationSeconds: number | null;
  streams: {
    codecType: string;
    codecName: string;
    sampleRate: number | null;
    channels: number | null;
    width: number | null;
    height: number | null;
  }[];
}

/**
 * Probes media bytes (or a file path) with ffprobe; rejects with `FfmpegError` when they do not
 * decode. Bytes go through a temporary file: from a pipe ffprobe cannot seek, so it misses the
 * duration of MP3 and the index of MP4s written with it at the end.
 */
export async function ffprobe(input: Buffer | string, signal?: AbortSignal): Promise<ProbeResult> {
  if (typeof input === 'string') return probeFile(input, signal);
  const dir = await mkdtemp(join(tmpdir(), 'svc-probe-'));
  try {
    const path = join(dir, 'media');
    await writeFile(path, input);
    return await probeFile(path, signal);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function probeFile(path: string, signal?: AbortSignal): Promise<ProbeResult> {
  const child = spawn(
    toolPath('ffprobe'),
    ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', path],
    { stdio: ['ignore', 'pipe', 'pipe'], signal },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (err = (err + chunk.toString('utf8')).slice(-STDERR_TAIL)));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', (e) =>
      reject(new FfmpegError(`ffprobe could not start: ${e.message}`, 'missing', { cause: e })),
    );
    child.once('close', resolve);
  });
  if (code !== 0) throw new FfmpegError(`ffprobe could not read the media: ${err.trim() || `exit ${code}`}`, 'failed');
  const parsed = JSON.parse(out) as {
    format?: { format_name?: string; duration?: string };
    streams?: {
      codec_type?: string;
      codec_name?: string;
      sample_rate?: string;
      channels?: number;
      width?: number;
      height?: number;
      duration?: string;
    }[];
  };
  const number = (value: string | number | undefined) =>
    value === undefined || Number.isNaN(Number(value)) ? null : Number(value);
  return {
    formatName: parsed.format?.format_name ?? '',
    durationSeconds:
      number(parsed.format?.duration) ??
      number(parsed.streams?.find((stream) => stream.duration !== undefined)?.duration),
    streams: (parsed.streams ?? []).map((s) => ({
      codecType: s.codec_type ?? '',
      codecName: s.codec_name ?? '',
      sampleRate: number(s.sample_rate),
      channels: s.channels ?? null,
      width: s.width ?? null,
      height: s.height ?? null,
    })),
  };
}
