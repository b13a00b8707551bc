/** A byte count as people read it: `512 B`, `12.0 KB`, `3.4 MB` (binary multiples). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Seconds with one decimal: `3.2 s`. */
export function formatSeconds(seconds: number): string {
  return `${seconds.toFixed(1)} s`;
}
