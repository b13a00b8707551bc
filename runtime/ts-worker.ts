import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

const TSX_API = import.meta.resolve('tsx/esm/api');

/**
 * Starts a `worker_threads` worker running the TypeScript module at `moduleUrl` (an absolute URL).
 * Node 20 workers do not inherit tsx's loader hooks, so the worker is an `eval` script that loads
 * the module through tsx's `tsImport`; a module that fails to load surfaces as the worker's `error`.
 */
export function startTsWorker(moduleUrl: string | URL, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  const href = new URL(moduleUrl).href;
  const boot = `import(${JSON.stringify(TSX_API)}).then((tsx) => tsx.tsImport(${JSON.stringify(href)}, ${JSON.stringify(href)}))`;
  return new Worker(boot, { ...options, eval: true });
}

/** What a worker pool that takes a file (Piscina's `filename` and `workerData`) needs to run a TypeScript module. */
interface TsPoolWorker {
  /** The plain-JavaScript entry each worker starts. */
  filename: string;
  /** Tells the entry which TypeScript module's default export handles the tasks. */
  workerData: { tsModule: string };
}

/**
 * Piscina options whose workers run the default export of the TypeScript module at `moduleUrl` (an
 * absolute URL) as the task handler, loaded through tsx as `startTsWorker` does. The pool marks a
 * worker ready once that module has loaded, top-level awaits included.
 */
export function tsPoolWorker(moduleUrl: string | URL): TsPoolWorker {
  return {
    filename: fileURLToPath(new URL('./ts-worker-entry/entry.mjs', import.meta.url)),
    workerData: { tsModule: new URL(moduleUrl).href },
  };
}
