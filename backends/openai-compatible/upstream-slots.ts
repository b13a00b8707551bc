import type PQueue from 'p-queue';

/** Gives a held upstream slot back; calling it again does nothing. */
export type ReleaseSlot = () => void;

/**
 * Waits for a free slot of `queue` and holds it until released, so a streamed answer counts
 * against the concurrency limit for as long as it streams. When `signal` aborts, a waiting
 * caller leaves the queue (rejecting with the signal's reason) and a held slot is freed at once.
 */
export function acquireSlot(queue: PQueue, signal: AbortSignal): Promise<ReleaseSlot> {
  return new Promise((resolve, reject) => {
    queue
      .add(
        () =>
          new Promise<void>((release) => {
            resolve(() => release());
          }),
        { signal },
      )
      // Rejects when aborted: before the slot is granted that is the caller's error; after, p-queue
      // has already freed the slot and the settled promise above ignores the rejection.
      .catch(reject);
  });
}
