// CPU of the sim's paced speech (SVC_SIM_SPEECH_REALTIME, what the realtime-active scenario runs):
// `streams` answers spoken at once at playback speed, each consumed as it comes, over `seconds`
// of speech. Reports the process CPU per 100 ms chunk and how late chunks leave (p50/p99 ms).
//   npx tsx bench/realtime/paced-speech-cost.ts [streams] [seconds]
// It only uses APIs that predate it, for A/B runs against an older build.
import { createSimSpeechBackend } from '../../backends/sim/sim-speech.js';

const streams = Number(process.argv[2] ?? 500);
const seconds = Number(process.argv[3] ?? 5);
const speech = createSimSpeechBackend({ realTime: true });
// About `seconds` of sim voice (roughly 10 characters a second).
const text = 'Tell me more about it. '.repeat(Math.max(1, Math.round(seconds / 2.2)));

const late: number[] = [];
let chunks = 0;
async function speak(offsetMs: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, offsetMs));
  const controller = new AbortController();
  const started = performance.now();
  let spokenMs = 0;
  for await (const chunk of speech.synthesize({ text, voice: 'alloy', signal: controller.signal })) {
    late.push(performance.now() - started - spokenMs);
    spokenMs += chunk.length / 48;
    chunks++;
  }
}

const before = process.cpuUsage();
const wallStart = performance.now();
await Promise.all(Array.from({ length: streams }, (_, i) => speak((i * 100) / streams)));
const cpu = process.cpuUsage(before);
const sorted = late.sort((a, b) => a - b);
const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 100) / 100;
console.log(
  JSON.stringify({
    streams,
    chunks,
    cpuUsPerChunk: Math.round(((cpu.user + cpu.system) / chunks) * 100) / 100,
    wallS: Math.round(performance.now() - wallStart) / 1000,
    lateMs: { p50: at(0.5), p99: at(0.99) },
  }),
);
