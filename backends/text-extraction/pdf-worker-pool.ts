import { Piscina } from 'piscina';
import { moduleUrl, tsPoolWorker } from '../../runtime/ts-worker.js';
import type { PdfJob, PdfWorkerReply } from './pdf-text-worker.js';
import type { ExtractionResult } from './text-extractor.js';

const WORKER_URL = moduleUrl('./pdf-text-worker.ts', import.meta.url);

/** Starting a worker (tsx, then pdf.js) takes about a second; a worker that never starts must not stall the queue. */
const START_TIMEOUT_MS = 60_000;

/** Calls `onExpire` after `ms` unless the returned disarm function runs first; injected by tests. */
export type DeadlineTimer = (ms: number, onExpire: () => void) => () => void;

/** Deadlines on the real timer. */
export const realDeadlineTimer: DeadlineTimer = (ms, onExpire) => {
  const timer = setTimeout(onExpire, ms);
  return () => clearTimeout(timer);
};

/** How the pool runs pdf.js. */
export interface PdfWorkerPoolOptions {
  maxSourceBytes: number;
  maxTextChars: number;
  /** Per PDF, from the moment the (started) worker takes it. */
  timeoutMs: number;
  /** V8 old-generation cap of the worker: a PDF that needs more fails instead of swelling the server. */
  heapMb: number;
  setDeadline: DeadlineTimer;
}

/** Runs PDFs through one reused pdf.js worker thread, one at a time, replacing it when it times out or dies. */
export interface PdfWorkerPool {
  /** Extracts the PDF at `path`; never rejects. */
  run(path: string): Promise<ExtractionResult>;
  /** Terminates the worker; queued and running PDFs answer `failed`. */
  close(): Promise<void>;
}

/** Why a PDF got no reply from the worker; also the reason its task was aborted with. */
type Cut = { type: 'lost'; reason: string } | { type: 'timeout'; starting: boolean };

function isCut(value: unknown): value is Cut {
  return (
    typeof value === 'object' &&
    value !== null &&
    'type' in value &&
    (value.type === 'lost' || value.type === 'timeout')
  );
}

function resultOf(outcome: PdfWorkerReply | Cut, options: PdfWorkerPoolOptions): ExtractionResult {
  switch (outcome.type) {
    case 'extracted':
      return {
        status: 'extracted',
        kind: 'pdf',
        text: outcome.text,
        truncated: outcome.truncated,
        pages: outcome.pages,
      };
    case 'too-large':
      return {
        status: 'unsupported',
        reason: `PDF is too large to extract (${outcome.bytes} bytes, limit ${options.maxSourceBytes})`,
      };
    case 'timeout':
      return {
        status: 'failed',
        reason: outcome.starting
          ? `timed out after ${START_TIMEOUT_MS} ms starting the PDF worker`
          : `timed out after ${options.timeoutMs} ms`,
      };
    case 'failed':
    case 'lost':
      return { status: 'failed', reason: outcome.reason };
  }
}

/**
 * Creates the pool: Piscina with one thread, started with the first PDF (tsx, then pdf.js, before it
 * takes a job) and kept for the next ones. Piscina owns the thread: its heap cap, replacing it when it
 * dies (a PDF past the heap cap kills it) and terminating it when a running task is aborted. Deadlines
 * are ours, as an AbortSignal per PDF: the start-up one while the worker loads, then the per-PDF one
 * from the moment the started worker takes the PDF. So that neither counts the wait behind other PDFs,
 * each PDF is handed to Piscina only once the one before it has settled.
 */
export function createPdfWorkerPool(options: PdfWorkerPoolOptions): PdfWorkerPool {
  const piscina = new Piscina<PdfJob, PdfWorkerReply>({
    ...tsPoolWorker(WORKER_URL),
    minThreads: 0,
    maxThreads: 1,
    idleTimeout: Infinity,
    resourceLimits: { maxOldGenerationSizeMb: options.heapMb },
  });
  let closed = false;
  /** A worker has loaded and waits for (or runs) a PDF. */
  let ready = false;
  /** The PDF handed to Piscina, with what to do once its worker is ready and how to cut it off. */
  let current: { onReady: () => void; cut: (why: Cut) => void } | null = null;
  piscina.on('workerCreate', () => {
    ready = true;
    current?.onReady();
  });
  piscina.on('workerDestroy', () => {
    const starting = !ready;
    ready = false;
    // Piscina fails the task of a worker that dies running it, but not one waiting for the worker
    // to load: fail that here, unless the 'error' event that may follow at once names the cause.
    const waiting = current;
    if (starting && waiting && !closed) {
      queueMicrotask(() => waiting.cut({ type: 'lost', reason: 'PDF worker exited while starting' }));
    }
  });
  // A worker that fails while loading has no task to fail, so Piscina reports it here.
  piscina.on('error', (err: unknown) =>
    current?.cut({ type: 'lost', reason: `PDF worker failed: ${err instanceof Error ? err.message : String(err)}` }),
  );

  const runOne = async (path: string): Promise<ExtractionResult> => {
    if (closed) return { status: 'failed', reason: 'the text extractor is closed' };
    const controller = new AbortController();
    let stopped: Promise<unknown> = Promise.resolve();
    let disarm = (): void => undefined;
    const cut = (why: Cut) => {
      if (controller.signal.aborted) return;
      // A worker that overran may still be spinning inside pdf.js, or may never finish starting:
      // terminating it stops that, and the next PDF waits until it has.
      stopped = Promise.allSettled(piscina.threads.map((thread) => thread.terminate()));
      controller.abort(why);
    };
    const armRun = () => {
      disarm();
      disarm = options.setDeadline(options.timeoutMs, () => cut({ type: 'timeout', starting: false }));
    };
    current = { onReady: armRun, cut };
    if (ready) armRun();
    else disarm = options.setDeadline(START_TIMEOUT_MS, () => cut({ type: 'timeout', starting: true }));
    const job: PdfJob = { path, maxSourceBytes: options.maxSourceBytes, maxTextChars: options.maxTextChars };
    try {
      return resultOf(await piscina.run(job, { signal: controller.signal }), options);
    } catch (err) {
      const reason: unknown = controller.signal.reason;
      if (isCut(reason)) return resultOf(reason, options);
      if (closed) return { status: 'failed', reason: 'the text extractor was closed' };
      // The worker died under the PDF, its heap cap reached or exited; Piscina replaces it.
      return { status: 'failed', reason: `PDF worker failed: ${err instanceof Error ? err.message : String(err)}` };
    } finally {
      disarm();
      current = null;
      await stopped;
    }
  };

  // The queue: each PDF starts when the one before it has settled (runOne never rejects).
  let tail: Promise<unknown> = Promise.resolve();
  return {
    run(path) {
      const result = tail.then(() => runOne(path));
      tail = result;
      return result;
    },
    async close() {
      closed = true;
      await piscina.destroy();
      await tail;
    },
  };
}
