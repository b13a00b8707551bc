// Worker-thread entry (started by pdf-worker-pool.ts): runs pdf.js off the server's event loop, one job at a time.
import { open } from 'node:fs/promises';
import { parentPort } from 'node:worker_threads';
import type * as PdfJs from 'pdfjs-dist/legacy/build/pdf.mjs';
import { ensureError } from '../../protocols/errors.js';
import { cutText } from './text-file-reader.js';

/** One PDF to read, as the pool posts it. */
export interface PdfJob {
  id: number;
  path: string;
  maxSourceBytes: number;
  maxTextChars: number;
}

/** What the worker posts back: `ready` once after loading pdf.js, then one reply per job. */
export type PdfWorkerReply =
  | { type: 'ready' }
  | { type: 'extracted'; id: number; text: string; truncated: boolean; pages: number }
  | { type: 'too-large'; id: number; bytes: number }
  | { type: 'failed'; id: number; reason: string };

if (!parentPort) throw new Error('pdf-text-worker.ts runs only as a worker thread');
const port = parentPort;

// The minified legacy builds (types from pdf.mjs, the same code): tsx turns source maps on process-wide,
// so the unminified files make Node parse their 7.7 MB of maps, and tsx scans twice the source. The
// worker starts in ~0.8 s instead of ~1.4 s.
const { getDocument } = (await import(import.meta.resolve('pdfjs-dist/legacy/build/pdf.min.mjs'))) as typeof PdfJs;
// pdf.js's own "worker" runs in this thread (its Node fake worker); handing it the handler here spares
// it an `import(workerSrc)` on the first document.
(globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = (await import(
  import.meta.resolve('pdfjs-dist/legacy/build/pdf.worker.min.mjs')
)) as unknown;

/** A page's text: items in content order, a line break where pdf.js saw one, blank edges dropped. */
function pageText(items: readonly object[], room: number): string {
  let text = '';
  for (const item of items) {
    if (!('str' in item) || typeof item.str !== 'string') continue;
    text += item.str;
    if ('hasEOL' in item && item.hasEOL) text += '\n';
    if (text.length > room) break; // enough for the cap; the rest of this page is not needed
  }
  return text.replace(/^\s*\n/, '').trimEnd();
}

async function extract(
  data: Uint8Array,
  maxTextChars: number,
): Promise<{ text: string; truncated: boolean; pages: number }> {
  const task = getDocument({
    data,
    verbosity: 0,
    disableFontFace: true,
    isEvalSupported: false,
    useSystemFonts: false,
    useWorkerFetch: false,
    enableXfa: false,
  });
  try {
    const doc = await task.promise;
    let text = '';
    let truncated = false;
    for (let number = 1; number <= doc.numPages && !truncated; number++) {
      const page = await doc.getPage(number);
      const separator = text ? '\n\n' : '';
      const room = maxTextChars - text.length - separator.length;
      const content = pageText((await page.getTextContent()).items, room);
      page.cleanup();
      if (!content) continue;
      if (content.length > room) {
        truncated = true;
        if (room <= 0) break;
        text += separator + cutText(content, room);
      } else {
        text += separator + content;
      }
    }
    return { text, truncated, pages: doc.numPages };
  } finally {
    await task.destroy();
  }
}

/** The file's bytes in a buffer of their own (pdf.js copies any other), or its size when past `maxBytes`. */
async function readWhole(path: string, maxBytes: number): Promise<Uint8Array | number> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    if (size > maxBytes) return size;
    const data = new Uint8Array(size);
    let filled = 0;
    while (filled < size) {
      const { bytesRead } = await handle.read(data, filled, size - filled, filled);
      if (bytesRead === 0) return data.slice(0, filled);
      filled += bytesRead;
    }
    return data;
  } finally {
    await handle.close();
  }
}

async function run(job: PdfJob): Promise<PdfWorkerReply> {
  try {
    const data = await readWhole(job.path, job.maxSourceBytes);
    if (typeof data === 'number') return { type: 'too-large', id: job.id, bytes: data };
    return { type: 'extracted', id: job.id, ...(await extract(data, job.maxTextChars)) };
  } catch (err) {
    const error = ensureError(err);
    return { type: 'failed', id: job.id, reason: `${error.name}: ${error.message}` };
  }
}

port.on('message', (job: PdfJob) => {
  void run(job).then((reply) => port.postMessage(reply));
});
port.postMessage({ type: 'ready' } satisfies PdfWorkerReply);
