/** Something the pacer wakes once its wait is over. */
export interface PacedWaiter {
  wake(): void;
}

/** Waiters due at one millisecond, and the one timer that wakes them. */
interface Bucket {
  waiters: PacedWaiter[];
  timer: NodeJS.Timeout;
}

/**
 * The sim's shared clock for its latency model: every stream waiting for the same millisecond is
 * woken by one timer, so thousands of slow streams cost a few hundred timers, not one timer, one
 * promise and one abort listener per stream per token. Waits are as precise as `setTimeout`
 * (whole milliseconds). A waiter that no longer wants its wake-up ignores it (the pacer keeps no
 * per-waiter state to cancel).
 */
export class SimPacer {
  private readonly buckets = new Map<number, Bucket>();

  /** Wakes `waiter` once `ms` have passed (at the earliest). */
  wait(ms: number, waiter: PacedWaiter): void {
    const due = Math.ceil(performance.now() + ms);
    const bucket = this.buckets.get(due);
    if (bucket) {
      bucket.waiters.push(waiter);
      return;
    }
    const timer = setTimeout(() => this.fire(due), Math.max(0, due - performance.now()));
    this.buckets.set(due, { waiters: [waiter], timer });
  }

  private fire(due: number): void {
    const bucket = this.buckets.get(due);
    this.buckets.delete(due);
    if (!bucket) return;
    for (const waiter of bucket.waiters) waiter.wake();
  }

  /** Timers armed now (one per distinct due millisecond). */
  get timers(): number {
    return this.buckets.size;
  }
}

/** The pacer every sim chat stream of this process shares. */
export const simPacer = new SimPacer();
