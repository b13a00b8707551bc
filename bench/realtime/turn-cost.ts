// CPU per realtime turn, in process: the realtime-active caller's loop (its sentence in the sim's
// voice, then silence, as 20 ms appends) handed to live calls' connections on an LMDB store, each
// turn heard, transcribed by the sim and answered by sim speech (instant, not paced), all the way to
// the rendered events. Process CPU (every thread: the voice workers and LMDB's writer included)
// over whole cycles, per turn and per input frame. What the 500-call scenario charges to the turns,
// without the sockets and the machine's load; and speech stopped → first answer audio (p50/p99 ms).
//   npx tsx bench/realtime/turn-cost.ts [cycles] [calls] [voice threads]
// It only uses APIs that predate it (with in-process-calls.ts), for A/B runs against an older build.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSimVoicePool } from '../../backends/sim/sim-voice-pool.js';
import { CallConnection } from '../../http/realtime/call-connection.js';
import { LmdbStore } from '../../runtime/store/lmdb-store.js';
import { inProcessCalls } from './in-process-calls.js';
import { buildSpeechLoop } from './speech-loop.js';

const cycles = Number(process.argv[2] ?? 20);
const callCount = Number(process.argv[3] ?? 20);
const threads = Number(process.argv[4] ?? 0);

const dataDir = mkdtempSync(join(tmpdir(), 'svc-turn-cost-'));
const store = LmdbStore.open(dataDir);
const pool = threads > 0 ? createSimVoicePool({ threads }) : null;
// TURN_COST_HISTORY=1: the actor host keeps a step history, as the server does with its admin API on.
const { calls, holder, logger, close } = await inProcessCalls(store, pool, process.env.TURN_COST_HISTORY === '1');

const loop = await buildSpeechLoop('Tell me more.', 700);
const frames = [...loop.speech, ...Array.from({ length: loop.silenceFrames }, () => loop.silence)];
let answered = 0;
let stopped = 0;
let transcribed = 0;
let audioOut = 0;
const connections: CallConnection[] = [];
/** Speech stopped → the answer's first audio, ms, per turn (the durable steps before an answer are in it). */
let firstAudioMs: number[] = [];
/** Where a server event's type starts: every event is `{"event_id":"event_` + 20 base62 + `","type":"…`. */
const TYPE_AT = '{"event_id":"event_01234567890123456789","type":"'.length;
/**
 * A server event's type, read from its head only (the harness must not scan each audio frame's
 * text: its cost would count in the figure). Texts are strings, or UTF-8 bytes where the build
 * sends them so.
 */
function typeOf(text: string | Uint8Array): string {
  if (typeof text === 'string') return text.slice(TYPE_AT, text.indexOf('"', TYPE_AT));
  const bytes = Buffer.from(text.buffer, text.byteOffset, Math.min(text.length, TYPE_AT + 64));
  return bytes.toString('latin1', TYPE_AT, bytes.indexOf(0x22, TYPE_AT));
}
for (let i = 0; i < callCount; i++) {
  let stoppedAt: number | null = null;
  const connection = new CallConnection(
    {
      send: (text: string | Uint8Array) => {
        const type = typeOf(text);
        if (type === 'response.done') answered++;
        else if (type === 'input_audio_buffer.speech_stopped') {
          stopped++;
          stoppedAt = performance.now();
        } else if (type === 'response.output_audio.delta') {
          audioOut++;
          if (stoppedAt !== null) firstAudioMs.push(performance.now() - stoppedAt);
          stoppedAt = null;
        } else if (type === 'conversation.item.input_audio_transcription.completed') transcribed++;
      },
      bufferedAmount: () => 0,
      close: () => undefined,
      // As the server's socket: the bytes are read at once (older builds ignore it).
      borrowsBytes: true,
    },
    { calls, logger, limits: { dropAudioBytes: 1e12, closeBytes: 1e12 }, timing: true },
  );
  await connection.open(holder, 'pro-1');
  connection.message(
    JSON.stringify({
      type: 'session.update',
      session: {
        max_output_tokens: 5,
        audio: { input: { turn_detection: { type: 'server_vad', interrupt_response: false } } },
      },
    }),
  );
  connections.push(connection);
}
const tick = () => new Promise((resolve) => setTimeout(resolve, 1));
for (let i = 0; i < 20; i++) await tick();

const frameBytes = frames.map((frame) => Buffer.from(frame));
/** Hands frame `i` over as the socket does: as bytes where the connection takes them (older builds: as text). */
function feed(connection: CallConnection, i: number): void {
  const byBytes = connection as Partial<Pick<CallConnection, 'messageBytes'>>;
  if (byBytes.messageBytes) byBytes.messageBytes.call(connection, frameBytes[i]!);
  else connection.message(frames[i]!);
}

/**
 * One cycle: every call says the sentence and falls silent, the calls a frame apart in their loop
 * (a call's turn ends while the others are mid-sentence, as live calls' turns do), the loop turning
 * between frames so answers run beside the input.
 */
async function cycle(): Promise<void> {
  const stride = Math.max(1, Math.floor(frames.length / callCount));
  for (let step = 0; step < frames.length; step++) {
    for (let c = 0; c < callCount; c++) feed(connections[c]!, (step + c * stride) % frames.length);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Resolves once every turn heard so far is answered. */
async function settled(): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (answered < stopped) {
    if (Date.now() > deadline) throw new Error(`turn-cost: ${stopped - answered} turns unanswered`);
    await tick();
  }
}

/** CPU µs of each of this process's threads by name (Linux /proc; empty elsewhere), to tell the loop from LMDB's writer, the voice workers and V8's helpers. */
function threadCpu(): Map<string, number> {
  const out = new Map<string, number>();
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const name =
        tid === String(process.pid)
          ? 'main'
          : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) + (process.env.TURN_COST_TIDS ? '#' + tid : '');
      const us = ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100; // utime + stime, clock ticks of 10 ms
      out.set(name, (out.get(name) ?? 0) + us);
    }
  } catch {
    // no /proc: no breakdown
  }
  return out;
}

/** p50 / p99 of `values`, ms to 0.01. */
function percentiles(values: number[]): { p50: number; p99: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0) * 100) / 100;
  return { p50: at(0.5), p99: at(0.99) };
}

for (let i = 0; i < 3; i++) await cycle(); // warm-up: JIT, the calls' first turns
await settled();
const threadsBefore = threadCpu();
const startTurns = answered;
const startTranscribed = transcribed;
const startAudio = audioOut;
firstAudioMs = [];
const before = process.cpuUsage();
const wallStart = performance.now();
for (let i = 0; i < cycles; i++) await cycle();
await settled();
const used = process.cpuUsage(before);
const wallMs = performance.now() - wallStart;
const turns = answered - startTurns;
const threadsAfter = threadCpu();
const perThread = Object.fromEntries(
  [...threadsAfter]
    .map(([name, us]) => [name, Math.round((us - (threadsBefore.get(name) ?? 0)) / turns)] as const)
    .filter(([, us]) => us > 0),
);
const cpuUs = used.user + used.system;
const result = {
  calls: callCount,
  voiceThreads: threads,
  turns,
  transcribed: transcribed - startTranscribed,
  audioDeltasPerTurn: (audioOut - startAudio) / turns,
  framesPerTurn: frames.length,
  cpuUsPerTurn: Math.round(cpuUs / turns),
  cpuUsPerInputFrame: Math.round((cpuUs / (turns * frames.length)) * 100) / 100,
  wallMsPerTurn: Math.round((wallMs / turns) * 1000) / 1000,
  cpuUsPerTurnByThread: perThread,
  firstAudioMs: percentiles(firstAudioMs),
};
process.stdout.write(`${JSON.stringify(result)}\n`);
for (const connection of connections) connection.socketClosed();
await new Promise((resolve) => setTimeout(resolve, 100));
await close();
await pool?.close();
await store.close();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
