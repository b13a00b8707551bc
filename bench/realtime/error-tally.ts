/** Errors by kind with the first sample of each: plain objects, so they cross a worker boundary. */
export interface ErrorCounts {
  counts: Record<string, number>;
  samples: Record<string, string>;
}

/** Counts errors by kind (`ticket:status:429`, `close:1006`, `error:invalid_value`, …) and keeps each kind's first sample. */
export class ErrorTally {
  readonly data: ErrorCounts = { counts: {}, samples: {} };

  /** Counts one error of `kind`; `detail` is kept if it is the first of its kind. */
  count(kind: string, detail = ''): void {
    this.data.counts[kind] = (this.data.counts[kind] ?? 0) + 1;
    this.data.samples[kind] ??= detail.slice(0, 200);
  }

  /** Adds another tally's counts into this one. */
  merge(other: ErrorCounts): void {
    for (const [kind, n] of Object.entries(other.counts)) {
      this.data.counts[kind] = (this.data.counts[kind] ?? 0) + n;
      this.data.samples[kind] ??= other.samples[kind] ?? '';
    }
  }

  /** Errors counted in all. */
  get total(): number {
    return Object.values(this.data.counts).reduce((sum, n) => sum + n, 0);
  }
}
