/** Gives a held upstream slot back; calling it again does nothing. */
export type ReleaseSlot = () => void;

interface Waiter {
  grant: (release: ReleaseSlot) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal;
  onAbort: () => void;
}

/**
 * A counting semaphore over the upstream's concurrency: a streamed answer holds its slot for as
 * long as it streams; callers beyond the limit wait in FIFO order. A waiting caller whose `signal`
 * aborts leaves the queue (rejecting with the signal's reason). Allocation-light on the fast path
 * (a free slot is granted synchronously, no promise chain), which matters at tens of thousands of
 * requests per second.
 */
export class UpstreamSlots {
  private held = 0;
  private readonly waiting: Waiter[] = [];

  constructor(readonly concurrency: number) {}

  /** A slot: at once when one is free, else when one frees up. */
  acquire(signal: AbortSignal): ReleaseSlot | Promise<ReleaseSlot> {
    signal.throwIfAborted();
    if (this.held < this.concurrency) {
      this.held++;
      return this.releaser();
    }
    return new Promise<ReleaseSlot>((grant, reject) => {
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

  private releaser(): ReleaseSlot {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (!next) {
        this.held--;
        return;
      }
      next.signal.removeEventListener('abort', next.onAbort);
      next.grant(this.releaser()); // the slot passes straight on
    };
  }

  /** Slots held now. */
  get inUse(): number {
    return this.held;
  }
}
