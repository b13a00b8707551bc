interface Waiter {
  grant: () => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal;
  onAbort: () => void;
}

/**
 * A counting semaphore over the upstream's concurrency: a streamed answer holds its slot for as
 * long as it streams; callers beyond the limit wait in FIFO order. A waiting caller whose `signal`
 * aborts leaves the queue (rejecting with the signal's reason). Allocation-free on the fast path
 * (a free slot is a counter; no promise, closure or signal), which matters at tens of thousands of
 * requests per second.
 */
export class UpstreamSlots {
  private held = 0;
  private readonly waiting: Waiter[] = [];

  constructor(readonly concurrency: number) {}

  /** Takes a free slot at once; false when every slot is held (then {@link wait}). */
  tryAcquire(): boolean {
    if (this.held >= this.concurrency) return false;
    this.held++;
    return true;
  }

  /** Resolves once a slot is passed on to this caller (FIFO); rejects with `signal`'s reason if it aborts first. */
  wait(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    return new Promise<void>((grant, reject) => {
      const waiter: Waiter = {
        grant,
        reject,
        signal,
        onAbort: () => {
          const at = this.waiting.indexOf(waiter);
          if (at >= 0) this.waiting.splice(at, 1);
          reject(signal.reason as Error);
        },
      };
      signal.addEventListener('abort', waiter.onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** Gives back one slot taken by {@link tryAcquire} or {@link wait}: the longest waiter gets it, else it is free. */
  release(): void {
    const next = this.waiting.shift();
    if (!next) {
      this.held--;
      return;
    }
    next.signal.removeEventListener('abort', next.onAbort);
    next.grant(); // the slot passes straight on
  }

  /** Slots held now. */
  get inUse(): number {
    return this.held;
  }
}
