import { setTimeout as sleep } from 'node:timers/promises';
import { arrivalGaps } from './arrivals.js';
import type { BenchPrompt } from './prompt-source.js';
import { timeRequest, type RequestTarget, type RequestTiming } from './stream-request.js';

/** Live counters of a running point, for the progress line. */
export interface PointProgress {
  label: string;
  done: number;
  /** Requests the point will send (null: bounded by time only). */
  total: number | null;
  errors: number;
  elapsedMs: number;
}

/** How one sweep point loads the target. */
export interface PointLoad {
  /** Closed loop: this many users, each sending again when its answer ends. */
  concurrency?: number;
  /** Open loop: requests per second arriving on a gamma process, whatever the answers do. */
  rate?: number;
  burstiness: number;
  /** Open loop: at most this many in flight (null: unbounded). */
  maxConcurrency: number | null;
  requests: number | null;
  durationMs: number | null;
  random: () => number;
}

/** The client's own load over a point: past about 90 % busy it delays what it times. */
export interface ClientLoad {
  eventLoopUtilization: number;
  cpuPercent: number;
}

/** Runs one sweep point and returns every request's timings and the client's own load. */
export async function runPoint(options: {
  label: string;
  target: RequestTarget;
  prompts: (index: number) => BenchPrompt;
  /** Prompts already used by earlier points: each point continues the sequence, so none repeats. */
  firstIndex: number;
  /** Distance between this client's prompt numbers (client threads interleave theirs; 1 alone). */
  stride?: number;
  load: PointLoad;
  onProgress?: (progress: PointProgress) => void;
}): Promise<{ timings: RequestTiming[]; client: ClientLoad }> {
  const { load, target } = options;
  const limit = load.requests ?? Infinity;
  const origin = performance.now();
  const deadline = load.durationMs === null ? Infinity : origin + load.durationMs;
  const elu = performance.eventLoopUtilization();
  const cpu = process.cpuUsage();
  const timings: RequestTiming[] = [];
  let issued = 0;
  let errors = 0;
  const one = async () => {
    const index = options.firstIndex + issued++ * (options.stride ?? 1);
    const timing = await timeRequest(target, options.prompts(index), index, origin);
    timings.push(timing);
    if (timing.error) errors += 1;
    options.onProgress?.({
      label: options.label,
      done: timings.length,
      total: load.requests,
      errors,
      elapsedMs: performance.now() - origin,
    });
  };
  const more = () => issued < limit && performance.now() < deadline;
  if (load.concurrency !== undefined) {
    const user = async () => {
      while (more()) await one();
    };
    await Promise.all(Array.from({ length: load.concurrency }, user));
  } else {
    const gap = arrivalGaps({ rate: load.rate!, burstiness: load.burstiness, random: load.random });
    const inFlight = new Set<Promise<void>>();
    let next = origin;
    while (more()) {
      const wait = next - performance.now();
      if (wait > 0) await sleep(wait);
      if (!more()) break;
      // With a cap, an arrival past it waits for a slot (as vLLM's --max-concurrency).
      while (load.maxConcurrency !== null && inFlight.size >= load.maxConcurrency) await Promise.race(inFlight);
      const running: Promise<void> = one().finally(() => inFlight.delete(running));
      inFlight.add(running);
      next += gap();
    }
    await Promise.all(inFlight);
  }
  const wallMs = Math.max(1, performance.now() - origin);
  const used = process.cpuUsage(cpu);
  return {
    timings: timings.sort((a, b) => a.index - b.index),
    client: {
      eventLoopUtilization: Math.round(performance.eventLoopUtilization(elu).utilization * 1000) / 1000,
      cpuPercent: Math.round(((used.user + used.system) / 1000 / wallMs) * 1000) / 10,
    },
  };
}
