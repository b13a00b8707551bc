import { Piscina } from 'piscina';
import { moduleUrl, tsPoolWorker } from '../../runtime/ts-worker.js';
import type { SimVoiceTask } from './sim-voice-worker.js';

const WORKER_URL = moduleUrl('./sim-voice-worker.ts', import.meta.url);

/**
 * The sim voice's CPU work on worker threads, so the event loop only moves frames: speaking a text
 * (its whole utterance rendered at once) and reading what a turn's audio says. Results are the
 * same as in the loop: the same functions run there.
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
  return {
    async speak(text, signal) {
      const pcm = (await piscina.run({ op: 'speak', text }, { signal })) as ArrayBuffer;
      return Buffer.from(pcm);
    },
    async read(pcm, signal) {
      // A Buffer may be a view into a shared pool slab: never transfer the caller's memory, a copy.
      const copy = new Uint8Array(pcm).buffer;
      return (await piscina.run({ op: 'read', pcm: copy }, { signal, transferList: [copy] })) as string | null;
    },
    close: () => piscina.destroy(),
  };
}
