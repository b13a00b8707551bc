import { createSimChatBackend } from '../../backends/sim/sim-chat-backend.js';
import { simBackendRequest } from './chat-sample.js';
import { Histogram, type LatencySummary } from './histogram.js';

/** The "direct backend call" figure: the sim's own cost with no HTTP, auth, billing or SSE. */
export interface DirectResult {
  name: string;
  calls: number;
  callsPerSecond: number;
  /** Call to last event. */
  latencyMs: LatencySummary;
  /** Call to first event. */
  firstEventMs: LatencySummary;
  eventsPerCall: number;
}

/**
 * Calls `createSimChatBackend({ttftMs: 0, tokensPerSecond: 0}).stream(...)` for the scenario's
 * request and iterates it to the end, one call after another, for `durationMs` after a warm-up.
 */
export async function runDirectBackend(options: {
  body: Record<string, unknown>;
  durationMs: number;
  warmupMs: number;
}): Promise<DirectResult> {
  const backend = createSimChatBackend({ ttftMs: 0, tokensPerSecond: 0 });
  const request = simBackendRequest(options.body);
  const latency = new Histogram();
  const firstEvent = new Histogram();
  let events = 0;
  const t0 = performance.now();
  const measureStart = t0 + options.warmupMs;
  const measureEnd = measureStart + options.durationMs;
  let lastYield = t0;
  for (let now = t0; now < measureEnd; now = performance.now()) {
    const start = performance.now();
    let first = 0;
    let count = 0;
    for await (const event of backend.stream(request)) {
      if (count++ === 0) first = performance.now();
      if (event.type === 'done') break;
    }
    const end = performance.now();
    if (start >= measureStart) {
      latency.record(end - start);
      firstEvent.record(first - start);
      events += count;
    }
    // Let timers (progress, samplers) run now and then.
    if (end - lastYield > 50) {
      await new Promise((resolve) => setImmediate(resolve));
      lastYield = performance.now();
    }
  }
  const calls = latency.data.count;
  return {
    name: 'sim backend, direct call (no HTTP)',
    calls,
    callsPerSecond: Math.round(calls / (options.durationMs / 1000)),
    latencyMs: latency.summary(),
    firstEventMs: firstEvent.summary(),
    eventsPerCall: calls ? Math.round((events / calls) * 10) / 10 : 0,
  };
}
