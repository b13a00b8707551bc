// The file a worker pool (Piscina) starts in each worker: Node 20 workers do not inherit tsx's loader
// hooks and a pool takes a file, not an `eval` script (see ../ts-worker.ts), so this plain module loads
// the TypeScript module named in `workerData.tsModule` through tsx's `tsImport` and hands its default
// export on as the task handler. Its own tsconfig.json lets the linter type-check it as JavaScript.
import { workerData } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';

/** @type {unknown} */
const data = workerData;
if (typeof data !== 'object' || data === null || !('tsModule' in data) || typeof data.tsModule !== 'string') {
  throw new TypeError('workerData.tsModule must be the URL of the TypeScript module to run');
}
/** @type {unknown} */
const loaded = await tsImport(data.tsModule, import.meta.url);
export default /** @type {{ default: unknown }} */ (loaded).default;
