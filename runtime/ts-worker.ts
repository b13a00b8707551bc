import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

const TSX_API = import.meta.resolve('tsx/esm/api');

/** Whether this code runs compiled (JavaScript built into `dist/`) rather than from its TypeScript sources through tsx. */
const COMPILED = import.meta.url.endsWith('.js');

/**
 * The URL of the module `relative` (written as its `.ts` source) next to `base` (a module's
 * `import.meta.url`), as this build runs it: the `.js` file when compiled. Worker modules are
 * named through it so the same code starts them from sources and from `dist/`.
 */
export function moduleUrl(relative: string, base: string): URL {
  return new URL(COMPILED ? relative.replace(/\.ts$/, '.js') : relative, base);
}

/**
 * Starts a `worker_threads` worker running the module at `moduleUrl` (an absolute URL, see
 * {@link moduleUrl}): compiled JavaScript directly; a TypeScript source through tsx, since Node 20
 * workers do not inherit tsx's loader hooks (the worker is an `eval` script that loads the module
 * with tsx's `tsImport`; a module that fails to load surfaces as the worker's `error`).
 */
export function startTsWorker(moduleUrl: string | URL, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  const href = new URL(moduleUrl).href;
  if (href.endsWith('.js')) return new Worker(new URL(href), options);
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
  const url = new URL(moduleUrl);
  // Compiled: the pool runs the module's default export itself.
  if (url.href.endsWith('.js')) return { filename: fileURLToPath(url), workerData: { tsModule: url.href } };
  return {
    filename: fileURLToPath(new URL('./ts-worker-entry/entry.mjs', import.meta.url)),
    workerData: { tsModule: new URL(moduleUrl).href },
  };
}
