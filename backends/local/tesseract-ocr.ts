import { spawn } from 'node:child_process';
import { loadSharp } from '../images/sharp-module.js';
import { RetryableError, TerminalError } from '../errors.js';
import type { OcrBackend, OcrPass, OcrReading, OcrWord } from '../ocr.js';
import { findBinary } from './find-binary.js';

const DEFAULT_BINARY = 'tesseract';
/** Below this width an image is enlarged before OCR: tesseract reads glyphs of 20 to 40 pixels best. */
const MIN_OCR_WIDTH = 1200;
/** Grey level splitting ink from the rest in the `dark_ink` and `light_ink` passes. */
const INK_THRESHOLD = 60;
/** How much of tesseract's stderr is kept for an error message. */
const STDERR_TAIL = 1000;
/** A single image never needs longer; a stuck engine is killed. */
const TIMEOUT_MS = 30_000;

/** Whether tesseract (or `binary`) is on this machine; looked up once per name. */
export function tesseractAvailable(binary: string = DEFAULT_BINARY): boolean {
  return findBinary(binary) !== null;
}

/**
 * Grey, opaque and large enough: transparency flattened on white, colours dropped (tesseract's
 * own binarisation mistakes saturated colour fields for ink), small images enlarged; then, for
 * the ink passes, only the darkest (or, inverted, the lightest) pixels kept as black on white,
 * which stops tesseract's page layout from filing a line of text under a picture region.
 */
async function prepare(image: Buffer, pass: OcrPass): Promise<Buffer> {
  const sharp = await loadSharp();
  try {
    const pipeline = sharp(image).flatten({ background: '#ffffff' }).greyscale();
    const { width } = await sharp(image).metadata();
    if (width && width < MIN_OCR_WIDTH)
      pipeline.resize({ width: Math.min(MIN_OCR_WIDTH, width * 4), kernel: 'lanczos3' });
    if (pass === 'dark_ink') pipeline.threshold(INK_THRESHOLD);
    else if (pass === 'light_ink') pipeline.negate({ alpha: false }).threshold(INK_THRESHOLD);
    return await pipeline.png({ compressionLevel: 1 }).toBuffer();
  } catch (err) {
    throw new TerminalError(
      `OCR could not decode the image: ${err instanceof Error ? err.message : String(err)}`,
      'upstream_error',
      { cause: err },
    );
  }
}

/** Words of tesseract's TSV output (level 5 rows), grouped into lines in reading order. */
export function parseTesseractTsv(tsv: string): OcrReading {
  const lines = new Map<string, OcrWord[]>();
  for (const row of tsv.split('\n').slice(1)) {
    const cols = row.split('\t');
    if (cols.length < 12 || cols[0] !== '5') continue;
    const text = cols.slice(11).join('\t').trim();
    if (!text) continue;
    const key = `${cols[2]}.${cols[3]}.${cols[4]}`;
    let line = lines.get(key);
    if (!line) lines.set(key, (line = []));
    line.push({ text, confidence: Math.max(0, Number(cols[10]) || 0) });
  }
  return { lines: [...lines.values()] };
}

/** Why `signal` aborted, as an Error. */
function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted', { cause: signal.reason });
}

function run(path: string, png: Buffer, signal: AbortSignal | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(path, ['stdin', 'stdout', '-l', 'eng', '--psm', '3', 'tsv'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      signal,
      timeout: TIMEOUT_MS,
      killSignal: 'SIGKILL',
    });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL)));
    child.stdin.on('error', () => {}); // an engine that stopped reading: its exit code tells
    child.once('error', (err) => {
      if (signal?.aborted) reject(abortReason(signal));
      else
        reject(
          new RetryableError(`OCR engine could not run: ${err.message}`, 'upstream_unavailable', null, { cause: err }),
        );
    });
    child.once('close', (code) => {
      if (signal?.aborted) return reject(abortReason(signal));
      if (code === 0) return resolve(Buffer.concat(out).toString('utf8'));
      reject(new TerminalError(`OCR engine failed (exit ${code}): ${stderr.trim() || 'no message'}`, 'upstream_error'));
    });
    child.stdin.end(png);
  });
}

/**
 * OCR with the tesseract CLI (Debian `tesseract-ocr` + `tesseract-ocr-eng`): the image is
 * prepared for the pass with sharp, piped to `tesseract stdin stdout tsv`, and the words come
 * back with their confidence. A missing executable is a RetryableError `upstream_unavailable`.
 */
export function createTesseractOcr(options: { binary?: string } = {}): OcrBackend {
  const binary = options.binary ?? DEFAULT_BINARY;
  return {
    name: 'tesseract',
    async read(image, { pass, signal }) {
      signal?.throwIfAborted();
      const path = findBinary(binary);
      if (!path)
        throw new RetryableError(
          `OCR engine "${binary}" is not installed (Debian: tesseract-ocr tesseract-ocr-eng)`,
          'upstream_unavailable',
        );
      return parseTesseractTsv(await run(path, await prepare(image, pass), signal));
    },
  };
}
