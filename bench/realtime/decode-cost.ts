// What the sim transcriber costs per realtime turn: decodeSimVoice over the audio the server VAD
// hands over for the realtime-active caller's sentence (300 ms of prefix, the 1.14 s utterance,
// 300 ms of trailing silence), clean and in white noise at -50 dBFS.
//   npx tsx bench/realtime/decode-cost.ts [rounds]
import { Bench } from 'tinybench';
import { pcm16Samples } from '../../backends/pcm16-samples.js';
import { decodeSimVoice, encodeSimVoice } from '../../backends/sim/sim-voice-codec.js';

const SENTENCE = 'Tell me more.';
const PAD = 7_200; // 300 ms at 24 kHz

function turn(noiseDbfs: number | null): Int16Array {
  const voice = pcm16Samples(encodeSimVoice(SENTENCE));
  const out = new Int16Array(PAD + voice.length + PAD);
  out.set(voice, PAD);
  if (noiseDbfs !== null) {
    // A fixed linear congruential source: every run hears the same noise.
    let seed = 12_345;
    const next = () => ((seed = (seed * 1_103_515_245 + 12_345) >>> 0) + 1) / 2 ** 32;
    const sigma = 32_768 * 10 ** (noiseDbfs / 20);
    for (let i = 0; i < out.length; i++) {
      const gauss = Math.sqrt(-2 * Math.log(next())) * Math.cos(2 * Math.PI * next());
      out[i] = Math.max(-32_768, Math.min(32_767, out[i]! + Math.round(sigma * gauss)));
    }
  }
  return out;
}

const cases = { clean: turn(null), 'noise -50 dBFS': turn(-50) };
for (const [name, samples] of Object.entries(cases))
  if (decodeSimVoice(samples) !== SENTENCE) throw new Error(`${name}: not decoded`);

const rounds = Number(process.argv[2] ?? 3);
const medians: Record<string, number[]> = {};
for (let round = 0; round < rounds; round++) {
  const bench = new Bench({ time: 1000 });
  for (const [name, samples] of Object.entries(cases)) bench.add(name, () => void decodeSimVoice(samples));
  await bench.run();
  for (const task of bench.tasks) {
    const latency = (task.result as unknown as { latency?: { p50: number } }).latency;
    (medians[task.name] ??= []).push((latency?.p50 ?? NaN) * 1000);
  }
}
console.log(`decodeSimVoice per realtime turn ("${SENTENCE}" + 2 × 300 ms), tinybench p50 µs per round:`);
for (const [name, values] of Object.entries(medians)) {
  const sorted = [...values].sort((a, b) => a - b);
  console.log(
    `  ${name.padEnd(16)} median ${sorted[sorted.length >> 1]!.toFixed(1)}  (${values.map((v) => v.toFixed(1)).join(', ')})`,
  );
}
