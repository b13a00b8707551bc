import { readFileSync } from 'node:fs';

/** A process's resident memory split as the kernel counts it (MiB). */
export interface MemorySplit {
  rssMb: number;
  /** RssAnon: heap and native allocations. */
  anonMb: number;
  /** RssFile: mapped files (the binary, libraries, LMDB's map). */
  fileMb: number;
  /** RssShmem: shared memory. */
  shmemMb: number;
}

const field = (status: string, name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;

/** Reads `/proc/<pid>/status` (Linux only); zeros when the process is gone. */
export function readMemorySplit(pid: number): MemorySplit {
  let status = '';
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    // gone: report zeros
  }
  return {
    rssMb: field(status, 'VmRSS'),
    anonMb: field(status, 'RssAnon'),
    fileMb: field(status, 'RssFile'),
    shmemMb: field(status, 'RssShmem'),
  };
}
