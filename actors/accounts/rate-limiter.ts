import { createBucket, takeFromBucket, type BucketState } from './token-bucket.js';
import type { Clock } from '../../runtime/clock.js';

/** Per-token requests-per-minute limits, in this process's memory. */
export class RateLimiter {
  private readonly buckets = new Map<string, BucketState>();

  constructor(private readonly clock: Clock) {}

  /** Takes one request for `key` under `perMinute` (null: no limit); returns ms to wait, 0 when allowed. */
  take(key: string, perMinute: number | null): number {
    if (perMinute === null) {
      this.buckets.delete(key);
      return 0;
    }
    const now = this.clock.now();
    const next = takeFromBucket(this.buckets.get(key) ?? createBucket(perMinute, now), now, perMinute);
    this.buckets.set(key, next);
    return next.granted ? 0 : next.retryAfterMs;
  }

  /** Forgets a key's bucket (token deleted). */
  forget(key: string): void {
    this.buckets.delete(key);
  }
}
