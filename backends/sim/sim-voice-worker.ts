// Worker-thread task handler (run by the Piscina pool in sim-voice-pool.ts): the sim voice's CPU
// work, off the server's event loop. Reading a turn (a scan for the sync, then a filter per
// symbol) is the costly part; speaking renders the tones. Audio travels both ways as transferred ArrayBuffers.
import { isMainThread } from 'node:worker_threads';
import { move } from 'piscina';
import { decodeSimVoice, simVoiceChunks } from './sim-voice-codec.js';

/** One piece of work, as the pool posts it: speak `text`, or read what PCM16 24 kHz audio says. */
export type SimVoiceTask = { op: 'speak'; text: string } | { op: 'read'; pcm: ArrayBuffer };

if (isMainThread) throw new Error('sim-voice-worker.ts runs only as a worker thread');

/** Speaking answers the whole utterance's PCM16 (transferred); reading answers the text, or null when none was heard. */
export default function handle(task: SimVoiceTask): ArrayBuffer | string | null {
  if (task.op === 'read') return decodeSimVoice(new Int16Array(task.pcm, 0, task.pcm.byteLength >> 1));
  const chunks = [...simVoiceChunks(task.text, 48_000)];
  const out = new Uint8Array(chunks.reduce((total, chunk) => total + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return move(out.buffer) as ArrayBuffer;
}
