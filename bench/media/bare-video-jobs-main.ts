// Baseline of the `media` scenario's held video jobs: BENCH_JOBS actors of the same video job
// machine in a bare process, each polling a backend that says "running" every BENCH_POLL_MS on a
// plain setTimeout, with no host, no persistence, no HTTP and no billing. Prints one JSON line:
// RSS before and after, and the CPU spent while holding them for BENCH_HOLD_MS.
import { createActor, fromPromise } from 'xstate';
import { videoJobMachine } from '../../actors/video/video-job-machine.js';
import type { PollOutput, SubmitOutput, VideoJobInput } from '../../actors/video/video-job-types.js';
import { readStatCpuMs } from '../load/process-sampler.js';

const jobs = Number(process.env.BENCH_JOBS ?? 1000);
const pollMs = Number(process.env.BENCH_POLL_MS ?? 1000);
const holdMs = Number(process.env.BENCH_HOLD_MS ?? 5000);
const settle = () => new Promise((resolve) => setTimeout(resolve, 200));
const rss = () => process.memoryUsage.rss();

const logic = videoJobMachine.provide({
  actors: {
    submit: fromPromise(() =>
      Promise.resolve<SubmitOutput>({ remote: { id: 'bare', startedAt: Date.now() }, at: Date.now() }),
    ),
    poll: fromPromise(() => Promise.resolve<PollOutput>({ state: 'running', progress: 1, at: Date.now() })),
  },
});

global.gc?.();
await settle();
const before = rss();
const actors = [];
for (let i = 0; i < jobs; i++) {
  const input: VideoJobInput = {
    id: `video_${i}`,
    accountId: 'acct_bench',
    tokenId: null,
    model: 'pro-1',
    quality: null,
    spec: {
      prompt: `a held clip ${i}`,
      width: 320,
      height: 240,
      durationSeconds: 1,
      tier: 'standard',
      seed: i,
      script: null,
    },
    backend: 'sim',
    costMicros: 50_000,
    holdMicros: 62_500,
    mediaId: `vidm_${i}`,
    at: Date.now(),
    pollMs,
  };
  const actor = createActor(logic, { input });
  // The host's part, done by hand: arm the poll deadline after each transition.
  let timer: NodeJS.Timeout | undefined;
  actor.subscribe((snapshot) => {
    const due = snapshot.context.deadlines.poll;
    clearTimeout(timer);
    if (typeof due === 'number')
      timer = setTimeout(() => actor.send({ type: 'TIMER', name: 'poll' }), Math.max(0, due - Date.now()));
  });
  actor.start();
  actor.send({ type: 'START', at: Date.now() });
  actors.push(actor);
}
await settle();
global.gc?.();
const cpuStart = readStatCpuMs('/proc/self/stat') ?? 0;
await new Promise((resolve) => setTimeout(resolve, holdMs));
const cpuMs = (readStatCpuMs('/proc/self/stat') ?? 0) - cpuStart;
const after = rss();
process.stdout.write(
  `${JSON.stringify({ jobs: actors.length, rssBefore: before, rssAfter: after, cpuPercent: (100 * cpuMs) / holdMs })}\n`,
);
process.exit(0);
