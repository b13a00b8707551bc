// CPU per input frame of a realtime call, in process: one `input_audio_buffer.append` of 20 ms
// (PCM16 24 kHz, and G.711 µ-law 8 kHz) handed to a live call's connection as the socket hands it
// over (its bytes, or its text on builds before the byte path): parse, decode, the call's checks,
// VAD. The audio is low noise the VAD measures but never hears as speech, so no frame turns into a
// machine event: this is the steady per-frame path.
// Beside it, the floor: JSON.parse and a base64 decode of the same frame. Runs in `npm run bench --
// --scenario micro`, or alone (`npx tsx bench/realtime/frame-cost.ts [ms]`) for A/B runs against
// an older build (it and in-process-calls.ts only use APIs that predate them).
import { Bench } from 'tinybench';
import { CallConnection } from '../../http/realtime/call-connection.js';
import { MemoryStore } from '../../runtime/store/memory-store.js';
import { inProcessCalls } from './in-process-calls.js';

/** One task of the frame benchmark. */
export interface FrameTask {
  group: string;
  name: string;
  baseline: boolean;
  fn: () => unknown;
}

/** Distinct frames cycled through, so the VAD and the decoder see varied input. */
const FRAMES = 50;

/** `bytes` of low noise (about −50 dBFS for PCM16), deterministic. */
function noise(bytes: number, seed: number, pcm: boolean): Buffer {
  const out = Buffer.alloc(bytes);
  let state = seed * 2_654_435_761;
  for (let i = 0; i < (pcm ? bytes / 2 : bytes); i++) {
    state = (state * 1_103_515_245 + 12_345) >>> 0;
    // µ-law 0xff is zero; 0xf0..0xff are the quietest codes.
    if (pcm) out.writeInt16LE(((state >>> 16) % 200) - 100, i * 2);
    else out[i] = 0xf0 + ((state >>> 16) % 16);
  }
  return out;
}

const appends = (bytes: number, pcm: boolean): string[] =>
  Array.from({ length: FRAMES }, (_, k) =>
    JSON.stringify({ type: 'input_audio_buffer.append', audio: noise(bytes, k + 1, pcm).toString('base64') }),
  );

/** Sets up two live calls (PCM and µ-law) on an in-memory host; the tasks feed them frames. */
export async function realtimeFrameTasks(): Promise<{ tasks: FrameTask[]; close(): Promise<void> }> {
  const { calls, holder, logger, close } = await inProcessCalls(new MemoryStore());
  let heard = 0;
  const socket = {
    send: (text: string) => void (text.includes('"input_audio_buffer.speech_started"') && heard++),
    bufferedAmount: () => 0,
    close: () => undefined,
  };
  const connect = async (format: string | null) => {
    const connection = new CallConnection(socket, {
      calls,
      logger,
      limits: { dropAudioBytes: 1e12, closeBytes: 1e12 },
      timing: false,
    });
    await connection.open(holder, 'pro-1');
    if (format)
      connection.message(
        JSON.stringify({ type: 'session.update', session: { audio: { input: { format: { type: format } } } } }),
      );
    // The OPEN (and the update) become durable on the next turns of the loop.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    // The call must listen, or the figure would be of frames dropped unheard: 200 ms of a loud
    // square wave must be heard as speech; then the buffer is cleared.
    const before = heard;
    const loud = Buffer.alloc(format ? 1600 : 9600);
    if (format) for (let i = 0; i < loud.length; i++) loud[i] = i % 2 ? 0x80 : 0x00;
    else for (let i = 0; i < loud.length / 2; i++) loud.writeInt16LE(i % 20 < 10 ? 8000 : -8000, i * 2);
    connection.message(JSON.stringify({ type: 'input_audio_buffer.append', audio: loud.toString('base64') }));
    if (heard === before) throw new Error(`frame-cost: the ${format ?? 'audio/pcm'} call did not hear speech`);
    connection.message(JSON.stringify({ type: 'input_audio_buffer.clear' }));
    return connection;
  };
  const pcmCall = await connect(null);
  const mulawCall = await connect('audio/pcmu');
  const pcm = appends(960, true);
  const mulaw = appends(160, false);
  // As the socket hands a frame over: its bytes where the connection takes them (older builds: text).
  const handOver = (connection: CallConnection, texts: string[]) => {
    const bytes = texts.map((text) => Buffer.from(text));
    const byBytes = connection as Partial<Pick<CallConnection, 'messageBytes'>>;
    return byBytes.messageBytes
      ? (i: number) => byBytes.messageBytes!.call(connection, bytes[i % FRAMES]!)
      : (i: number) => connection.message(texts[i % FRAMES]!);
  };
  const pcmFrame = handOver(pcmCall, pcm);
  const mulawFrame = handOver(mulawCall, mulaw);
  let p = 0;
  let m = 0;
  let f = 0;
  const tasks: FrameTask[] = [
    {
      group: 'realtime input frame',
      name: 'append 20 ms PCM16 24 kHz (parse, decode, checks, VAD)',
      baseline: false,
      fn: () => pcmFrame(p++),
    },
    {
      group: 'realtime input frame',
      name: 'append 20 ms µ-law 8 kHz (parse, decode, G.711 + resample, checks, VAD)',
      baseline: false,
      fn: () => mulawFrame(m++),
    },
    {
      group: 'realtime input frame',
      name: 'baseline: JSON.parse + base64 decode of the PCM frame',
      baseline: true,
      fn: () => Buffer.from((JSON.parse(pcm[f++ % FRAMES]!) as { audio: string }).audio, 'base64'),
    },
  ];
  return {
    tasks,
    close: async () => {
      pcmCall.socketClosed();
      mulawCall.socketClosed();
      await new Promise((resolve) => setTimeout(resolve, 50));
      await close();
    },
  };
}

// Alone: prints each task's mean, median and p99 µs per frame, one JSON line, for interleaved A/B runs.
if (import.meta.url === `file://${process.argv[1]}`) {
  const timeMs = Number(process.argv[2] ?? 2000);
  const frames = await realtimeFrameTasks();
  const { tasks } = frames;
  const bench = new Bench({ time: timeMs, warmupTime: 300 });
  for (const task of tasks) bench.add(task.name, task.fn);
  await bench.run();
  const rows = bench.tasks.map((task) => {
    const latency = (task.result as unknown as { latency?: { mean: number; p50: number; p99: number } }).latency;
    const us = (ms: number | undefined) => Math.round((ms ?? NaN) * 100_000) / 100;
    return { name: task.name, meanUs: us(latency?.mean), p50Us: us(latency?.p50), p99Us: us(latency?.p99) };
  });
  await frames.close();
  process.stdout.write(`${JSON.stringify(rows)}\n`);
  process.exit(0);
}
