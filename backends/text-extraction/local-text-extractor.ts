import { ensureError } from '../../protocols/errors.js';
import { charsetOf, extractionKindOf } from '../../protocols/content-type.js';
import { createPdfWorkerPool, realDeadlineTimer, type DeadlineTimer } from './pdf-worker-pool.js';
import { readTextFile } from './text-file-reader.js';
import type { ExtractionResult, TextExtractor } from './text-extractor.js';

/** The caps on one extraction. */
export interface TextExtractionLimits {
  /** Bytes read from the start of a text file; a PDF larger than this is not extracted at all. */
  maxSourceBytes: number;
  /** Characters (UTF-16 units) of text kept. */
  maxTextChars: number;
  /** Per PDF; on overrun the worker is terminated and replaced. */
  timeoutMs: number;
}

/** Tuning past the limits; the defaults suit the server. */
export interface LocalTextExtractorOptions {
  /** V8 heap cap of the PDF worker thread in MiB (default 512). */
  workerHeapMb?: number;
  /** Arms PDF deadlines (default: the real timer); tests inject one they fire by hand. */
  setDeadline?: DeadlineTimer;
}

/**
 * Extracts text in this process: text, CSV, markdown and source code read and decoded here a chunk at a
 * time, PDFs through pdf.js in one reused worker thread so a large or hostile PDF never stalls the event loop.
 */
export function createLocalTextExtractor(
  limits: TextExtractionLimits,
  options: LocalTextExtractorOptions = {},
): TextExtractor {
  const pdf = createPdfWorkerPool({
    ...limits,
    heapMb: options.workerHeapMb ?? 512,
    setDeadline: options.setDeadline ?? realDeadlineTimer,
  });
  let closed = false;

  return {
    async extract(input): Promise<ExtractionResult> {
      if (closed) return { status: 'failed', reason: 'the text extractor is closed' };
      const kind = extractionKindOf(input.contentType, input.filename);
      if (!kind) return { status: 'unsupported', reason: `no text extraction for ${input.contentType}` };
      if (kind === 'pdf') {
        if (input.bytes > limits.maxSourceBytes) {
          return {
            status: 'unsupported',
            reason: `PDF is too large to extract (${input.bytes} bytes, limit ${limits.maxSourceBytes})`,
          };
        }
        return pdf.run(input.path);
      }
      try {
        const read = await readTextFile(input.path, limits, charsetOf(input.contentType));
        return { status: 'extracted', kind, text: read.text, truncated: read.truncated };
      } catch (err) {
        return { status: 'failed', reason: ensureError(err).message };
      }
    },
    async close() {
      closed = true;
      await pdf.close();
    },
  };
}
