// In-process fan-out: what following costs the host itself, with no HTTP. One actor, N
// followers whose sinks only count; each INC commits one event that every follower receives.
import type { LogEvent } from '../../runtime/host/actor-log.js';
import { BENCH_MACHINE } from './bench-machine.js';
import { openBenchHost } from './bench-host.js';
import { measure, type HostFigure } from './measure.js';

/** In-process fan-out figures and what one event looked like to its followers. */
export interface FollowFanoutResult {
  figures: HostFigure[];
  followers: number;
  /** Distinct LogEvent objects the followers received for one event (1 = one read shared by all). */
  objectsPerEvent: number;
}

const GROUP = 'follow: one event to N in-process followers';

async function sendWithFollowers(
  followers: number,
  timeMs: number,
  name: string,
  baseline: boolean,
  short?: string,
): Promise<{ figure: HostFigure; objectsPerEvent: number }> {
  const bench = openBenchHost();
  try {
    await bench.host.spawn(BENCH_MACHINE, { id: 'fan', ownerId: 'bench', input: { start: 0 } });
    let received = 0;
    const bySeq = new Map<number, Set<LogEvent>>();
    for (let i = 0; i < followers; i++) {
      bench.host.follow('fan', 0, {
        event: (event) => {
          received++;
          // Only the first few events: enough to see whether followers share one object.
          if (event.seq <= 3) {
            const set = bySeq.get(event.seq) ?? new Set<LogEvent>();
            set.add(event);
            bySeq.set(event.seq, set);
          }
        },
        end: () => {},
      });
    }
    const figure = await measure(
      {
        group: GROUP,
        name,
        baseline,
        ...(short && { short }),
        unit: 'events',
        ...(followers > 0 && { note: `${followers.toLocaleString('en-US')} deliveries per event` }),
      },
      async () => {
        await bench.host.send('fan', { type: 'INC' });
        return 1;
      },
      { timeMs, warmupMs: Math.min(200, timeMs / 4), concurrency: 1 },
    );
    const expected = followers * (figure.count > 0 ? 1 : 0);
    if (followers && received < expected)
      throw new Error(`followers received ${received} events, expected at least ${expected}`);
    return { figure, objectsPerEvent: bySeq.get(1)?.size ?? 0 };
  } finally {
    await bench.close();
  }
}

/** The least possible same work: the send with no follower, one log read, the same object to every sink. */
async function sendAndShare(followers: number, timeMs: number): Promise<HostFigure> {
  const bench = openBenchHost();
  try {
    await bench.host.spawn(BENCH_MACHINE, { id: 'fan', ownerId: 'bench', input: { start: 0 } });
    let received = 0;
    const sinks = Array.from({ length: followers }, () => (_event: LogEvent) => void received++);
    let cursor = 0;
    return await measure(
      {
        group: GROUP,
        short: 'one shared read',
        name: `baseline: host.send INC with no follower, then one log read handed to ${followers.toLocaleString('en-US')} sinks`,
        baseline: true,
        unit: 'events',
      },
      async () => {
        await bench.host.send('fan', { type: 'INC' });
        for (const event of bench.host.events('fan', cursor, 1000)) {
          for (const sink of sinks) sink(event);
          cursor = event.seq;
        }
        return 1;
      },
      { timeMs, warmupMs: Math.min(200, timeMs / 4), concurrency: 1 },
    );
  } finally {
    await bench.close();
  }
}

/** Times host.send with `followers` in-process followers beside the same send with one and none. */
export async function runFollowFanout(options: { followers: number; timeMs: number }): Promise<FollowFanoutResult> {
  const n = options.followers.toLocaleString('en-US');
  const many = await sendWithFollowers(
    options.followers,
    options.timeMs,
    `host.send INC, awaited, ${n} followers`,
    false,
  );
  const one = await sendWithFollowers(1, options.timeMs, 'host.send INC, awaited, 1 follower', false);
  const none = await sendWithFollowers(
    0,
    options.timeMs,
    'baseline: host.send INC, awaited, no follower',
    true,
    'no follower',
  );
  const shared = await sendAndShare(options.followers, options.timeMs);
  return {
    figures: [many.figure, one.figure, none.figure, shared],
    followers: options.followers,
    objectsPerEvent: many.objectsPerEvent,
  };
}
