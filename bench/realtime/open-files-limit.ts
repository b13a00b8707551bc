import { readFileSync } from 'node:fs';

/** File descriptors kept aside for everything besides the calls (stdio, LMDB, tickets, workers). */
const SPARE_FILES = 512;

/** The soft limit on open files of this process (children inherit it). */
export function openFilesLimit(): number {
  try {
    const line = /Max open files\s+(\d+|unlimited)/.exec(readFileSync('/proc/self/limits', 'utf8'));
    return line?.[1] === 'unlimited' ? Infinity : Number(line?.[1] ?? Infinity);
  } catch {
    return Infinity;
  }
}

/**
 * Refuses a run that would run out of file descriptors: the client (a worker of this process) and
 * the server (a child) each hold one socket per call, so each needs `calls` descriptors plus spares.
 */
export function assertFilesFor(calls: number, scenario: string): void {
  const limit = openFilesLimit();
  if (calls > limit - SPARE_FILES) {
    throw new Error(
      `${scenario}: ${calls.toLocaleString('en-US')} calls need about ${(calls + SPARE_FILES).toLocaleString('en-US')} open files in the client and in the server; the limit here is ${limit} (ulimit -n), so at most ${Math.max(0, limit - SPARE_FILES)} calls`,
    );
  }
}
