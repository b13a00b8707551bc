import { once } from 'node:events';
import { moduleUrl, startTsWorker } from '../../runtime/ts-worker.js';
import type { Pacing, ServedRequest } from './paced-openai-server.js';

/** The paced fake model server running on a worker thread: its origin, what it served, and a close. */
export interface PacedWorkerServer {
  /** The host root (no `/v1`), as `--target` takes it. */
  url: string;
  served(): Promise<ServedRequest[]>;
  close(): Promise<void>;
}

/** Starts the paced fake server (see paced-openai-server.ts) on a thread of its own. */
export async function startPacedWorker(pacing: Pacing): Promise<PacedWorkerServer> {
  const worker = startTsWorker(moduleUrl('./paced-openai-worker.ts', import.meta.url), { workerData: pacing });
  const [first] = (await once(worker, 'message')) as [{ port: number }];
  return {
    url: `http://127.0.0.1:${first.port}`,
    async served() {
      worker.postMessage('truth');
      const [reply] = (await once(worker, 'message')) as [{ served: ServedRequest[] }];
      return reply.served;
    },
    async close() {
      worker.postMessage('close');
      await once(worker, 'message');
      await worker.terminate();
    },
  };
}
