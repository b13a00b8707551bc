import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** One reading of a process (or thread): CPU time used so far and resident memory. */
export interface ResourceReading {
  cpuMs: number;
  rssBytes: number;
}

/** A server's CPU and memory over a measured window. */
export interface ServerResources {
  /** The sampled process, or null when the server ran inside the bench process. */
  pid: number | null;
  /** CPU time over wall time (100 = one full core). */
  cpuPercent: number;
  rssMbStart: number;
  rssMbMax: number;
  rssMbEnd: number;
}

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** CPU time (user + system, ms) from a `/proc/.../stat` file; null when unreadable. */
export function readStatCpuMs(statPath: string): number | null {
  try {
    const text = readFileSync(statPath, 'utf8');
    // The command name sits in parentheses and may hold spaces: fields start after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks();
  } catch {
    return null;
  }
}

/** Reads another process from /proc/<pid> (Linux only; null when it is gone). */
export function readProcess(pid: number): ResourceReading | null {
  const cpuMs = readStatCpuMs(`/proc/${pid}/stat`);
  if (cpuMs === null) return null;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return { cpuMs, rssBytes: rssKb * 1024 };
  } catch {
    return null;
  }
}

/**
 * Reads this process when the server runs in-process: resident memory of the whole process, and
 * CPU of the calling (main) thread only, so the client worker's CPU is not counted as the server's.
 */
export function readSelf(): ResourceReading {
  const threadCpu = readStatCpuMs('/proc/thread-self/stat');
  const usage = process.cpuUsage();
  return { cpuMs: threadCpu ?? (usage.user + usage.system) / 1000, rssBytes: process.memoryUsage.rss() };
}

/** Samples a server every `everyMs` between `start()` and `stop()`. */
export class ResourceSampler {
  private first: ResourceReading | null = null;
  private last: ResourceReading | null = null;
  private startedAt = 0;
  private stoppedAt = 0;
  private maxRss = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pid: number | null,
    private readonly everyMs = 250,
  ) {}

  private read(): ResourceReading | null {
    return this.pid === null ? readSelf() : readProcess(this.pid);
  }

  private sample(): void {
    const reading = this.read();
    if (!reading) return;
    this.last = reading;
    this.maxRss = Math.max(this.maxRss, reading.rssBytes);
  }

  /** Takes the first reading and starts sampling. */
  start(): void {
    this.first = this.read();
    this.last = this.first;
    this.maxRss = this.first?.rssBytes ?? 0;
    this.startedAt = performance.now();
    this.timer = setInterval(() => this.sample(), this.everyMs);
    this.timer.unref();
  }

  /** Takes the last reading and summarises the window (null when nothing could be read). */
  stop(): ServerResources | null {
    clearInterval(this.timer);
    this.sample();
    this.stoppedAt = performance.now();
    if (!this.first || !this.last) return null;
    const mb = (bytes: number) => Math.round((bytes / 1024 ** 2) * 10) / 10;
    const wallMs = Math.max(1, this.stoppedAt - this.startedAt);
    return {
      pid: this.pid,
      cpuPercent: Math.round(((this.last.cpuMs - this.first.cpuMs) / wallMs) * 1000) / 10,
      rssMbStart: mb(this.first.rssBytes),
      rssMbMax: mb(this.maxRss),
      rssMbEnd: mb(this.last.rssBytes),
    };
  }
}
