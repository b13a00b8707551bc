import type { Worker } from 'node:worker_threads';
import { startTsWorker } from '../../runtime/ts-worker.js';
import type { PdfJob, PdfWorkerReply } from './pdf-text-worker.js';
import type { ExtractionResult } from './text-extractor.js';

const WORKER_URL = new URL('./pdf-text-worker.ts', import.meta.url);

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

type JobReply = Exclude<PdfWorkerReply, { type: 'ready' }>;
type Outcome = JobReply | { type: 'lost'; reason: string } | { type: 'timeout'; starting: boolean };

/** One worker thread; `lost` once it has died, timed out or been closed, and never used again. */
class WorkerSlot {
  private readonly worker: Worker;
  /** Resolves null once pdf.js is loaded, or with why the worker died first. */
  private readonly started: Promise<string | null>;
  private markStarted!: (lostReason: string | null) => void;
  private onOutcome: ((outcome: Outcome) => void) | null = null;
  lost = false;

  constructor(heapMb: number) {
    this.started = new Promise((resolve) => (this.markStarted = resolve));
    // stdout/stderr piped and drained: pdf.js prints load-time warnings with console.log.
    this.worker = startTsWorker(WORKER_URL, {
      resourceLimits: { maxOldGenerationSizeMb: heapMb },
      stdout: true,
      stderr: true,
    });
    this.worker.stdout.resume();
    this.worker.stderr.resume();
    this.worker.unref();
    this.worker.on('message', (reply: PdfWorkerReply) => {
      if (reply.type === 'ready') this.markStarted(null);
      else this.onOutcome?.(reply);
    });
    this.worker.on('error', (err) => this.lose(`PDF worker failed: ${err.message}`));
    this.worker.on('exit', (code) => this.lose(`PDF worker exited with code ${code}`));
  }

  /** Posts `job` once the worker has started; settles with its reply, a timeout or the worker's loss. */
  serve(job: PdfJob, timeoutMs: number, setDeadline: DeadlineTimer): Promise<Outcome> {
    return new Promise((resolve) => {
      let done = false;
      let disarm = (): void => undefined;
      const finish = (outcome: Outcome) => {
        if (done) return;
        done = true;
        disarm();
        this.onOutcome = null;
        this.worker.unref();
        resolve(outcome);
      };
      this.onOutcome = (outcome) => {
        if (outcome.type === 'lost' || ('id' in outcome && outcome.id === job.id)) finish(outcome);
      };
      this.worker.ref(); // the process waits for a PDF in flight, not for an idle worker
      disarm = setDeadline(START_TIMEOUT_MS, () => finish({ type: 'timeout', starting: true }));
      void this.started.then((lostReason) => {
        if (done) return;
        if (lostReason !== null) return finish({ type: 'lost', reason: lostReason });
        disarm();
        disarm = setDeadline(timeoutMs, () => finish({ type: 'timeout', starting: false }));
        if (!done) this.worker.postMessage(job);
      });
    });
  }

  /** Marks the worker lost (answering any job in flight) and terminates it. */
  async stop(reason: string): Promise<void> {
    this.lose(reason);
    await this.worker.terminate();
  }

  private lose(reason: string): void {
    if (this.lost) return;
    this.lost = true;
    this.markStarted(reason);
    this.onOutcome?.({ type: 'lost', reason });
  }
}

function resultOf(outcome: Outcome, options: PdfWorkerPoolOptions): ExtractionResult {
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

/** Creates the pool; its worker starts with the first PDF and is kept for the next ones. */
export function createPdfWorkerPool(options: PdfWorkerPoolOptions): PdfWorkerPool {
  let slot: WorkerSlot | null = null;
  let nextId = 1;
  let closed = false;
  // The queue: each PDF starts when the one before it has settled (runOne never rejects).
  let tail: Promise<unknown> = Promise.resolve();

  const runOne = async (path: string): Promise<ExtractionResult> => {
    if (closed) return { status: 'failed', reason: 'the text extractor is closed' };
    if (!slot || slot.lost) slot = new WorkerSlot(options.heapMb);
    const current = slot;
    const job: PdfJob = {
      id: nextId++,
      path,
      maxSourceBytes: options.maxSourceBytes,
      maxTextChars: options.maxTextChars,
    };
    const outcome = await current.serve(job, options.timeoutMs, options.setDeadline);
    // A worker that overran may still be spinning inside pdf.js: only terminating it stops that.
    if (outcome.type === 'timeout' || outcome.type === 'lost') await current.stop('replaced');
    return resultOf(outcome, options);
  };

  return {
    run(path) {
      const result = tail.then(() => runOne(path));
      tail = result;
      return result;
    },
    async close() {
      closed = true;
      await slot?.stop('the text extractor was closed');
      slot = null;
      await tail;
    },
  };
}
