import type { OverlayOptions } from 'sharp';
import { loadSharp } from './sharp-module.js';
import { IMAGE_COST_PER_MEGAPIXEL_MICROS, imageCostMicros } from '../../protocols/pricing.js';
import type { Clock } from '../../runtime/clock.js';
import { RetryableError, TerminalError } from '../errors.js';
import type { GeneratedImage, ImageBackend, ImageRenderRequest } from '../image-generation.js';
import { encodeImage } from './image-encoding.js';
import { quotedText, simSceneSvg, textOverlaySvg } from './sim-image-scene.js';

/** Scripted behaviours from `metadata.sim` (documented in docs/images.md). */
interface SimImageScript {
  fail?: 'unavailable' | 'timeout' | 'error';
  /** The first N attempts draw the expected text misspelled (exercises repairs). */
  textErrors: number;
  /** The first N attempts draw a stray word (exercises the no-text policy). */
  strayText: number;
}

const STRAY_WORD = 'SALE';

function scriptOf(script: ImageRenderRequest['script']): SimImageScript {
  const count = (value: unknown) =>
    typeof value === 'number' && Number.isInteger(value) && value >= 0 ? Math.min(value, 100) : 0;
  const fail = script?.fail;
  return {
    fail: fail === 'unavailable' || fail === 'timeout' || fail === 'error' ? fail : undefined,
    textErrors: count(script?.text_errors),
    strayText: count(script?.stray_text),
  };
}

/** One letter of the longest word replaced (X, or Q for an X): a misspelling OCR reads plainly. */
export function misspell(line: string): string {
  const words = line.split(' ');
  let at = 0;
  for (let i = 1; i < words.length; i++) if (words[i]!.length > words[at]!.length) at = i;
  const word = words[at]!;
  const i = Math.floor(word.length / 2);
  const replacement = word[i]?.toUpperCase() === 'X' ? 'Q' : 'X';
  words[at] =
    word.slice(0, i) +
    (word[i] === word[i]?.toLowerCase() ? replacement.toLowerCase() : replacement) +
    word.slice(i + 1);
  return words.join(' ');
}

/** The lines this attempt draws: the expected text (misspelled while the script says so), the prompt's quotes, a stray word. */
function linesFor(request: ImageRenderRequest, script: SimImageScript): string[] {
  const { text, attempt } = request;
  let lines: string[];
  if (text?.mode === 'exact')
    lines =
      attempt < script.textErrors ? text.lines.map((line, i) => (i === 0 ? misspell(line) : line)) : [...text.lines];
  else if (text?.mode === 'none') lines = [];
  else lines = quotedText(request.prompt);
  if (attempt < script.strayText) lines.push(STRAY_WORD);
  return lines;
}

function failure(kind: NonNullable<SimImageScript['fail']>): Error {
  if (kind === 'unavailable')
    return new RetryableError('sim image backend: scripted outage (metadata.sim.fail)', 'upstream_unavailable');
  if (kind === 'timeout')
    return new RetryableError('sim image backend: scripted timeout (metadata.sim.fail)', 'upstream_timeout');
  return new TerminalError('sim image backend: scripted failure (metadata.sim.fail)', 'upstream_error');
}

/** The whole weight of a mask: 255 where its pixels are transparent (may change), 0 where opaque. */
async function maskWeight(mask: Buffer, width: number, height: number): Promise<Buffer> {
  const sharp = await loadSharp();
  const weight = await sharp(mask)
    .resize({ width, height, fit: 'fill' })
    .ensureAlpha()
    .extractChannel(3)
    .negate()
    .raw()
    .toBuffer();
  return sharp({ create: { width, height, channels: 3, background: '#000000' } })
    .joinChannel(weight, { raw: { width, height, channels: 1 } })
    .png()
    .toBuffer();
}

/** An edit: the first reference at the target size, the scene drawn over it (only where the mask allows), the other references as thumbnails, then the text. */
async function composeEdit(request: ImageRenderRequest, lines: string[]): Promise<Buffer> {
  const { width, height, references, mask } = request;
  const sharp = await loadSharp();
  const base = await sharp(references[0]).resize({ width, height, fit: 'cover' }).ensureAlpha().png().toBuffer();
  let scene = await sharp(
    Buffer.from(
      simSceneSvg({
        prompt: request.prompt,
        seed: request.seed,
        width,
        height,
        transparent: true,
        opacity: mask ? 1 : 0.55,
        lines: [],
      }),
    ),
  )
    .png()
    .toBuffer();
  if (mask)
    scene = await sharp(scene)
      .composite([{ input: await maskWeight(mask, width, height), blend: 'dest-in' }])
      .png()
      .toBuffer();
  const layers: OverlayOptions[] = [{ input: scene }];
  const thumb = { width: Math.max(16, Math.floor(width / 5)), height: Math.max(16, Math.floor(height / 5)) };
  for (const [i, reference] of references.slice(1, 5).entries()) {
    const input = await sharp(reference)
      .resize({ ...thumb, fit: 'cover' })
      .png()
      .toBuffer();
    layers.push({ input, left: width - (thumb.width + 8) * (i + 1), top: height - thumb.height - 8 });
  }
  if (lines.length > 0) layers.push({ input: Buffer.from(textOverlaySvg(lines, width, height)) });
  return sharp(base).composite(layers).png().toBuffer();
}

/** Why `signal` aborted, as an Error. */
function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted', { cause: signal.reason });
}

/** Waits `ms` on `clock` (the sim's latency model), or rejects when `signal` aborts. */
function wait(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const handle = clock.setTimer(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clock.clearTimer(handle);
      reject(abortReason(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The embedded image backend: real PNG/JPEG/WebP drawn with sharp from SVG, deterministic from
 * prompt, seed and size (the same inputs give the same bytes). Expected text is drawn black on a
 * white band in a large plain font so OCR reads it; `metadata.sim` scripts misspellings, stray
 * text and failures. Edits draw the scene over the first reference (through the mask's
 * transparent pixels when there is one). Its cost per megapixel is declared in the tariff.
 */
export function createSimImageBackend(options: { clock: Clock; latencyMs: number }): ImageBackend {
  const rates = IMAGE_COST_PER_MEGAPIXEL_MICROS.sim;
  const costMicros: ImageBackend['costMicros'] = ({ tier, width, height }) =>
    imageCostMicros(rates[tier], width, height);
  return {
    name: 'sim',
    costMicros,
    async render(request): Promise<GeneratedImage> {
      request.signal.throwIfAborted();
      const script = scriptOf(request.script);
      await wait(options.clock, options.latencyMs, request.signal);
      if (script.fail) throw failure(script.fail);
      const lines = linesFor(request, script);
      const { width, height } = request;
      const raw =
        request.references.length > 0
          ? await composeEdit(request, lines)
          : Buffer.from(
              simSceneSvg({
                prompt: request.prompt,
                seed: request.seed,
                width,
                height,
                transparent: request.background === 'transparent',
                opacity: 1,
                lines,
              }),
            );
      const encoded = await encodeImage((await loadSharp())(raw, { density: 72 }), {
        width,
        height,
        format: request.format,
        compression: request.compression,
        background: request.background,
      });
      return { ...encoded, costMicros: costMicros({ tier: request.tier, width, height }) };
    },
  };
}
