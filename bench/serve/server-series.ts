import { readProcess, readSelf } from '../load/process-sampler.js';

/** One reading of the server: seconds since the sweep began, CPU over the last interval, resident memory. */
export interface ServerSample {
  tS: number;
  cpuPercent: number;
  rssMb: number;
}

/**
 * Samples a local server's CPU and RSS every `everyMs` over a whole sweep (a pid read from /proc,
 * or 'self' when the server runs in this process, where the client's CPU is counted too).
 */
export function sampleServer(
  pid: number | 'self',
  everyMs = 500,
): { samples: ServerSample[]; take: () => void; stop: () => ServerSample[] } {
  const read = () => (pid === 'self' ? readSelf() : readProcess(pid));
  const samples: ServerSample[] = [];
  const origin = performance.now();
  let last = read();
  let lastAt = origin;
  const take = () => {
    const reading = read();
    const now = performance.now();
    // Readings closer than 50 ms apart would turn clock-tick rounding into 0 % or 200 % spikes.
    if (!reading || !last || now - lastAt < 50) return;
    samples.push({
      tS: Math.round(now - origin) / 1000,
      cpuPercent: Math.round(((reading.cpuMs - last.cpuMs) / Math.max(1, now - lastAt)) * 1000) / 10,
      rssMb: Math.round((reading.rssBytes / 1024 ** 2) * 10) / 10,
    });
    last = reading;
    lastAt = now;
  };
  const timer = setInterval(take, everyMs);
  timer.unref();
  return {
    samples,
    take,
    stop: () => {
      clearInterval(timer);
      take();
      return samples;
    },
  };
}
