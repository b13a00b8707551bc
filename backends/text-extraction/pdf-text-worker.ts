// Worker-thread task handler (run by the Piscina pool in pdf-worker-pool.ts): runs pdf.js off the
// server's event loop, one job at a time.
import { Console } from 'node:console';
import { open } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { isMainThread } from 'node:worker_threads';
import type * as PdfJs from 'pdfjs-dist/legacy/build/pdf.mjs';
import { ensureError } from '../../protocols/errors.js';
import { cutText } from './text-file-reader.js';

/** One PDF to read, as the pool posts it. */
export interface PdfJob {
  path: string;
  maxSourceBytes: number;
  maxTextChars: number;
}

/** What the worker answers for one job (pdf.js failures included: the handler never throws). */
export type PdfWorkerReply =
  | { type: 'extracted'; text: string; truncated: boolean; pages: number }
  | { type: 'too-large'; bytes: number }
  | { type: 'failed'; reason: string };

if (isMainThread) throw new Error('pdf-text-worker.ts runs only as a worker thread');
// pdf.js prints load-time warnings with console.log, and a pool's workers write to the server's own
// stdout: this thread's console writes nowhere.
const nowhere = new Writable({ write: (_chunk, _encoding, done) => done() });
globalThis.console = new Console({ stdout: nowhere, stderr: nowhere });

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

/** Extracts one PDF; the pool starts a job only once this module (pdf.js included) has loaded. */
export default async function run(job: PdfJob): Promise<PdfWorkerReply> {
  try {
    const data = await readWhole(job.path, job.maxSourceBytes);
    if (typeof data === 'number') return { type: 'too-large', bytes: data };
    return { type: 'extracted', ...(await extract(data, job.maxTextChars)) };
  } catch (err) {
    const error = ensureError(err);
    return { type: 'failed', reason: `${error.name}: ${error.message}` };
  }
}
