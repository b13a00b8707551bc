import { readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';

/** `madvise(2)` advice: drop the range's page-table entries; a shared file mapping refaults from the page cache. */
const MADV_DONTNEED = 4;

type Madvise = (address: bigint, length: bigint, advice: number) => number;

let madvise: Madvise | null | undefined;

/**
 * libc's `madvise` through koffi (a maintained FFI with prebuilt binaries), loaded on first use:
 * lmdb-js offers no way to advise its map. Null where it cannot be had (not Linux, no koffi).
 */
function loadMadvise(): Madvise | null {
  if (madvise !== undefined) return madvise;
  madvise = null;
  if (process.platform !== 'linux') return madvise;
  try {
    const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
    const libc = koffi.load('libc.so.6');
    madvise = libc.func('int madvise(uintptr_t addr, size_t length, int advice)') as Madvise;
  } catch {
    madvise = null;
  }
  return madvise;
}

/** The read-only shared mappings of `file` in this process, from `/proc/self/maps`. */
export function sharedReadOnlyMappings(file: string): { start: bigint; end: bigint }[] {
  const suffix = ` ${file}`;
  const ranges: { start: bigint; end: bigint }[] = [];
  for (const line of readFileSync('/proc/self/maps', 'utf8').split('\n')) {
    // "start-end perms offset dev inode path"; only r--s: a writable map could hold what no file has yet.
    if (!line.endsWith(suffix) || line.indexOf(' r--s ') < 0) continue;
    const dash = line.indexOf('-');
    const space = line.indexOf(' ');
    ranges.push({ start: BigInt(`0x${line.slice(0, dash)}`), end: BigInt(`0x${line.slice(dash + 1, space)}`) });
  }
  return ranges;
}

/**
 * Drops this process's page-table entries for the read-only shared mappings of `file` (LMDB's
 * map of `data.mdb`): the pages stay in the kernel's page cache, so the next read of one is a
 * minor fault, not a disk read. Without this, every page LMDB ever read stays counted in the
 * process's RSS, which then grows with the store (append-only ledger) however flat the heap is.
 * Returns the bytes advised (0 where madvise is not available or the file is not mapped).
 *
 * Safe only while the mappings cannot be unmapped concurrently (the store is open): the caller
 * stops before closing the environment.
 */
export function releaseMappedPages(file: string): number {
  const advise = loadMadvise();
  if (!advise) return 0;
  let path: string;
  try {
    path = realpathSync(file);
  } catch {
    return 0;
  }
  let bytes = 0;
  for (const { start, end } of sharedReadOnlyMappings(path)) {
    if (advise(start, end - start, MADV_DONTNEED) === 0) bytes += Number(end - start);
  }
  return bytes;
}
