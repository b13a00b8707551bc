import { readProcess, readSelf, ResourceSampler } from '../load/process-sampler.js';
import type { ServerUnderTest } from '../load/servers.js';

/** The server's resident memory now, in bytes (null for a remote target or a process that is gone). */
export function serverRss(server: ServerUnderTest): number | null {
  if (server.sample === null) return null;
  return (server.sample === 'self' ? readSelf() : readProcess(server.sample))?.rssBytes ?? null;
}

/** A sampler of the server's CPU and RSS (null for a remote target). */
export function serverSampler(server: ServerUnderTest, everyMs = 250): ResourceSampler | null {
  return server.sample === null ? null : new ResourceSampler(server.sample === 'self' ? null : server.sample, everyMs);
}

/** Whole megabytes to one decimal. */
export const mb = (bytes: number) => Math.round((bytes / 1024 ** 2) * 10) / 10;

/** Splits `total` calls over `threads` clients as evenly as possible, with each share's first index. */
export function shares(total: number, threads: number): { first: number; count: number }[] {
  const n = Math.max(1, Math.min(threads, total));
  return Array.from({ length: n }, (_, i) => {
    const first = Math.floor((i * total) / n);
    return { first, count: Math.floor(((i + 1) * total) / n) - first };
  });
}
