/**
 * Requests being answered now, and a way to wait until none are: the drain on shutdown awaits
 * the count reaching zero (or its deadline) instead of polling it.
 */
export class InFlight {
  private count = 0;
  private waiters: (() => void)[] = [];

  /** How many requests are in flight. */
  get size(): number {
    return this.count;
  }

  /** Counts one request in; call {@link leave} once it is answered. */
  enter(): void {
    this.count++;
  }

  /** Counts one request out; wakes the drain when it was the last. */
  leave(): void {
    this.count--;
    if (this.count > 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves once no request is in flight, or after `timeoutMs`, whichever comes first. */
  drained(timeoutMs: number): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.waiters.push(done);
    });
  }
}
