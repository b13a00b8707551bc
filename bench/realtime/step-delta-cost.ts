// The step history's cost per commit and per read as a call grows: a full step (the whole context
// packed) against a change to the previous step (step-delta.ts), and reading a step back from the
// nearest full one for a few keyframe intervals. A call-shaped context: a conversation of message
// items (two per turn) beside the session's settings.
//   npx tsx bench/realtime/step-delta-cost.ts [turns]
import type { ActorStep } from '../../runtime/host/actor-steps.js';
import { encodeStep, fullStep, type StepBase, type StoredStep } from '../../runtime/host/step-delta.js';
import { tablePackr } from '../../runtime/store/table-packr.js';

const turns = Number(process.argv[2] ?? 120);
const session = {
  instructions: 'You are a helpful voice agent. Answer briefly.'.repeat(4),
  voice: 'alloy',
  tools: Array.from({ length: 3 }, (_, i) => ({ name: `tool_${i}`, description: 'Looks a thing up.', parameters: {} })),
};
const item = (n: number, role: string) => ({
  id: `item_${n}`,
  type: 'message',
  role,
  status: 'completed',
  content: [{ type: role === 'user' ? 'input_audio' : 'output_audio', transcript: `words of turn ${n} `.repeat(3) }],
});
let context: Record<string, unknown> = { id: 'call_1', session, items: [], responses: 0, usage: { tokens: 0 } };
const steps: ActorStep[] = [];
for (let n = 0; n < turns; n++) {
  const items = context.items as unknown[];
  // Three durable steps a turn: speech stopped, transcribed (the user's item), answered (the agent's).
  context = { ...context, speaking: false };
  steps.push(stepOf(steps.length + 1, context));
  context = { ...context, items: [...items, item(2 * n, 'user')] };
  steps.push(stepOf(steps.length + 1, context));
  context = {
    ...context,
    items: [...(context.items as unknown[]), item(2 * n + 1, 'assistant')],
    responses: (context.responses as number) + 1,
    usage: { tokens: n * 100 },
  };
  steps.push(stepOf(steps.length + 1, context));
}

function stepOf(step: number, ctx: unknown): ActorStep {
  return { step, ts: step, cause: 'x', upToSeq: step, status: 'active', value: 'listening', context: ctx };
}

/** µs per call of `run` over `rounds` passes over the last `window` steps (the call at its length). */
function time(window: number, rounds: number, run: (step: ActorStep, i: number) => void): number {
  const last = steps.slice(-window);
  const start = process.hrtime.bigint();
  for (let r = 0; r < rounds; r++) for (const [i, step] of last.entries()) run(step, i);
  return Number(process.hrtime.bigint() - start) / 1000 / (rounds * window);
}

for (const every of [16, 32, 64]) {
  let base: StepBase | null = null;
  const stored: StoredStep[] = [];
  let bytes = 0;
  for (const step of steps) {
    const encoded = encodeStep(base, step, every);
    base = encoded.base;
    const packed = tablePackr.pack(encoded.stored);
    bytes += packed.length;
    stored.push(tablePackr.unpack(packed) as StoredStep);
  }
  const full = time(30, 200, (step) => tablePackr.pack(step));
  let b: StepBase | null = { step: steps.length - 31, context: steps.at(-31)!.context, keyframe: 0 };
  const delta = time(30, 200, (step) => {
    const encoded = encodeStep(b, step, 1e9);
    b = encoded.base;
    tablePackr.pack(encoded.stored);
  });
  // Reading a step back in the worst case: its keyframe, then every − 1 changes, unpacked from bytes.
  const bytesOf = stored.map((s) => tablePackr.pack(s));
  const from = Math.floor((steps.length - every) / every) * every;
  const read = time(1, 50, () => {
    let step: ActorStep | undefined;
    for (let i = from; i < from + every; i++) step = fullStep(step, tablePackr.unpack(bytesOf[i]!) as StoredStep);
  });
  const fullBytes = steps.reduce((sum, step) => sum + tablePackr.pack(step).length, 0);
  console.log(
    JSON.stringify({
      turns,
      items: (context.items as unknown[]).length,
      every,
      fullUs: +full.toFixed(1),
      deltaUs: +delta.toFixed(1),
      readWorstUs: +read.toFixed(0),
      storedKB: Math.round(bytes / 1024),
      fullKB: Math.round(fullBytes / 1024),
    }),
  );
}
