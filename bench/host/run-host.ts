import { runFollowFanout } from './follow-fanout.js';
import { runInspectionCost } from './inspection-cost.js';
import type { HostFigure } from './measure.js';
import { runRehydrate, type RehydrateResult } from './rehydrate.js';
import { runTransitionFigures } from './transitions.js';

/** Settings of the host benchmarks (`--scenario host`). */
export interface HostSettings {
  /** Measured window of each throughput figure. */
  timeMs: number;
  /** Concurrent loops of the parallel rows. */
  parallel: number;
  /** Events per transition in the events-appended group. */
  burst: number;
  /** In-process followers of the follow figure. */
  followers: number;
  /** Parked sessions written and rehydrated (0: skip). */
  rehydrate: number;
}

/** Everything the host benchmarks measured. */
export interface HostReport {
  settings: HostSettings;
  figures: HostFigure[];
  follow: { followers: number; objectsPerEvent: number };
  rehydrate: RehydrateResult | null;
}

/**
 * The durable actor host in-process, on a real LMDB store in a temporary directory: spawn,
 * transition and append throughput, following, and rehydration of parked sessions.
 */
export async function runHostBench(settings: HostSettings, onStep?: (step: string) => void): Promise<HostReport> {
  onStep?.('host: spawn, transitions, appends');
  const figures = await runTransitionFigures(settings);
  onStep?.('host: in-process followers');
  const follow = await runFollowFanout({ followers: settings.followers, timeMs: settings.timeMs });
  figures.push(...follow.figures);
  onStep?.('host: inspection and metrics cost');
  figures.push(...(await runInspectionCost({ timeMs: settings.timeMs, parallel: Math.min(100, settings.parallel) })));
  let rehydrate: RehydrateResult | null = null;
  if (settings.rehydrate > 0) {
    onStep?.(`host: writing ${settings.rehydrate.toLocaleString('en-US')} parked sessions, then rehydrating`);
    rehydrate = await runRehydrate({ count: settings.rehydrate, concurrency: 1000 });
    figures.push(rehydrate.write);
  }
  return {
    settings,
    figures,
    follow: { followers: follow.followers, objectsPerEvent: follow.objectsPerEvent },
    rehydrate,
  };
}
