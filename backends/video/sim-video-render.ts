import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ffmpegToBuffer } from '../ffmpeg/ffmpeg.js';
import { seedFromBytes } from '../sim/sim-media-seed.js';
import type { VideoSpec } from '../video-generation.js';

/** Frames per second of sim clips. */
export const SIM_VIDEO_FPS = 24;

const FONTS = [
  '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf',
  '/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf',
];
let fontPath: string | null | undefined;

/** A plain font for the caption, or null (no caption) where none is installed. */
function captionFont(): string | null {
  if (fontPath === undefined) fontPath = FONTS.find((path) => existsSync(path)) ?? null;
  return fontPath;
}

/** The prompt as a caption ffmpeg's filter syntax cannot misread: letters, digits and a little punctuation, at most 48 characters. */
export function captionOf(prompt: string): string {
  return prompt
    .replace(/[^A-Za-z0-9 .!?-]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 48);
}

const hex = (value: number) =>
  Math.floor(value * 0xffffff)
    .toString(16)
    .padStart(6, '0');

/** The ffmpeg arguments of a clip: a seeded moving gradient, a box crossing it and the prompt as a caption, H.264 in MP4 at `out`. */
export function simVideoArgs(spec: VideoSpec, out: string): string[] {
  const random = seedFromBytes(Buffer.from(spec.prompt, 'utf8'), `video:${spec.seed}`);
  const { width, height, durationSeconds } = spec;
  const colours = [random.next(), random.next(), random.next()].map((value, i) => `c${i}=0x${hex(value)}`).join(':');
  const source = `gradients=s=${width}x${height}:r=${SIM_VIDEO_FPS}:${colours}:n=3:speed=${(0.005 + random.next() * 0.03).toFixed(4)}:seed=${spec.seed % 4_294_967_295}`;
  const box = Math.max(8, Math.round(Math.min(width, height) / 6));
  const speed = Math.round((width + box) / Math.max(1, durationSeconds));
  const y = Math.round(random.next() * Math.max(0, height - box));
  const filters = [
    `format=yuv420p`,
    `drawbox=x='mod(t*${speed},${width + box})-${box}':y=${y}:w=${box}:h=${box}:color=white@0.85:t=fill`,
  ];
  const font = captionFont();
  const caption = captionOf(spec.prompt);
  if (font && caption)
    filters.push(
      `drawtext=fontfile=${font}:text='${caption}':fontsize=${Math.max(10, Math.round(height / 16))}:fontcolor=white:borderw=2:bordercolor=black:x=(w-text_w)/2:y=h-text_h*2`,
    );
  return [
    '-f',
    'lavfi',
    '-i',
    source,
    '-t',
    String(durationSeconds),
    '-vf',
    filters.join(','),
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    '-movflags',
    '+faststart',
    '-y',
    out,
  ];
}

/** Renders the sim clip of `spec`: a real H.264 MP4 of exactly its size and duration. */
export async function renderSimVideo(spec: VideoSpec, signal: AbortSignal): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-video-'));
  try {
    const out = join(dir, 'clip.mp4');
    await ffmpegToBuffer(simVideoArgs(spec, out), { signal });
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
