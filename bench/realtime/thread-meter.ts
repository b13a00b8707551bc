import { readStatCpuMs } from '../load/process-sampler.js';

/** How busy a client thread was over a window: near 100 % CPU or ELU near 1 means it set the pace. */
export interface ThreadLoad {
  cpuPercent: number | null;
  eventLoopUtilization: number;
}

/** Starts measuring the calling thread's CPU time and event-loop utilisation; call the result to stop. */
export function meterThread(): () => ThreadLoad {
  const started = performance.now();
  const cpuStart = readStatCpuMs('/proc/thread-self/stat');
  const eluStart = performance.eventLoopUtilization();
  return () => {
    const wallMs = Math.max(1, performance.now() - started);
    const cpuEnd = readStatCpuMs('/proc/thread-self/stat');
    return {
      cpuPercent: cpuStart !== null && cpuEnd !== null ? Math.round(((cpuEnd - cpuStart) / wallMs) * 1000) / 10 : null,
      eventLoopUtilization: Math.round(performance.eventLoopUtilization(eluStart).utilization * 1000) / 1000,
    };
  };
}

/** Whether a client thread was saturated (so the server could have done more than the figures show). */
export function isClientBound(load: ThreadLoad): boolean {
  return (load.cpuPercent ?? 0) >= 85 || load.eventLoopUtilization >= 0.9;
}
