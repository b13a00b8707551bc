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
