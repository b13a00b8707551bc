import { Piscina } from 'piscina';
import { moduleUrl, tsPoolWorker } from '../../runtime/ts-worker.js';
import { decodeSimVoice, simVoiceChunks } from './sim-voice-codec.js';
import type { SimVoiceTask } from './sim-voice-worker.js';

const WORKER_URL = moduleUrl('./sim-voice-worker.ts', import.meta.url);

/**
 * Tasks waiting per thread beyond which a task runs in the event loop instead. Measured at 500 live
 * calls on a loaded 2-core machine: an unbounded queue let every turn wait behind every other
 * (almost none transcribed in the window, where the loop alone did hundreds); bounded, the threads
 * take what they can at once and an overload degrades as it did without them.
 */
const QUEUE_PER_THREAD = 2;

/**
 * The sim voice's CPU work on worker threads, so the event loop only moves frames: speaking a text
 * (its whole utterance rendered at once) and reading what a turn's audio says; when the threads are
 * behind, in the loop. Results are the same either way: the same functions run.
 */
export interface SimVoicePool {
  /** The PCM16 24 kHz utterance of `text` (its buffer transferred from the worker). */
  speak(text: string, signal: AbortSignal): Promise<Buffer>;
  /** What the sim voice said in `pcm` (PCM16 24 kHz), or null; `pcm` is copied once and the copy transferred. */
  read(pcm: Buffer, signal: AbortSignal): Promise<string | null>;
  close(): Promise<void>;
}

/**
 * A pool of `threads` workers, started at once and kept while the server runs: a worker takes a
 * moment to load (longer from TypeScript sources), which the first call's first answer must not wait for.
 */
export function createSimVoicePool(options: { threads: number }): SimVoicePool {
  const piscina = new Piscina<SimVoiceTask, ArrayBuffer | string | null>({
    ...tsPoolWorker(WORKER_URL),
    minThreads: options.threads,
    maxThreads: options.threads,
    idleTimeout: Infinity,
  });
  const busy = () => piscina.queueSize >= QUEUE_PER_THREAD * options.threads;
  return {
    async speak(text, signal) {
      if (busy()) return Buffer.concat([...simVoiceChunks(text, 48_000)]);
      const pcm = (await piscina.run({ op: 'speak', text }, { signal })) as ArrayBuffer;
      return Buffer.from(pcm);
    },
    async read(pcm, signal) {
      if (busy()) return decodeSimVoice(new Int16Array(new Uint8Array(pcm).buffer));
      // A Buffer may be a view into a shared pool slab: never transfer the caller's memory, a copy.
      const copy = new Uint8Array(pcm).buffer;
      return (await piscina.run({ op: 'read', pcm: copy }, { signal, transferList: [copy] })) as string | null;
    },
    close: () => piscina.destroy(),
  };
}
