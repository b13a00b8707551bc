// Worker entry: runs the paced fake model server (paced-openai-server.ts) on a thread of its own, so
// its pacing never waits on the client's event loop. Posts `{port}` once listening; answers
// `truth` with the requests served (times moved onto the wall clock, performance.timeOrigin-based
// like the client's `sentAt`, so the two threads' times compare) and `close` by closing.
import { parentPort, workerData } from 'node:worker_threads';
import { startPacedServer, type Pacing } from './paced-openai-server.js';

const server = await startPacedServer(workerData as Pacing);
parentPort!.on('message', (message: 'truth' | 'close') => {
  const wall = (ms: number) => performance.timeOrigin + ms;
  if (message === 'truth')
    parentPort!.postMessage({
      served: server.served.map((s) => ({
        ...s,
        arrivalMs: wall(s.arrivalMs),
        writesMs: s.writesMs.map(wall),
        endMs: wall(s.endMs),
      })),
    });
  else void server.close().then(() => parentPort!.postMessage({ closed: true }));
});
parentPort!.postMessage({ port: server.port });
