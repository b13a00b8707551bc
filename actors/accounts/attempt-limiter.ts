import type { Clock } from '../../runtime/clock.js';

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * At most `limit` attempts per `windowMs` for each key (an address, an account, a contact), as a
 * token bucket refilled continuously, in this process's memory: a restart forgets it, which only
 * ever allows more. An attempt is reserved before its outcome is known and refunded when it turns
 * out not to count, so concurrent attempts can never exceed the limit. Keys whose bucket is full
 * again are dropped when the map grows past `maxKeys`, so memory stays bounded under a flood of
 * distinct keys.
 */
export class AttemptLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;

  constructor(
    private readonly clock: Clock,
    private readonly options: { limit: number; windowMs: number; maxKeys?: number },
  ) {
    this.perMs = options.limit / options.windowMs;
  }

  /** Reserves one attempt for `key` before its outcome is known: 0 when reserved, else how many ms until one is free. */
  reserve(key: string): number {
    const now = this.clock.now();
    const tokens = this.level(key, now);
    if (tokens < 1) return Math.ceil((1 - tokens) / this.perMs);
    this.buckets.set(key, { tokens: tokens - 1, updatedAt: now });
    if (this.buckets.size > (this.options.maxKeys ?? 100_000)) this.sweep(now);
    return 0;
  }

  /** Gives back one reserved attempt for `key` (its outcome did not count), never past the limit. */
  refund(key: string): void {
    if (!this.buckets.has(key)) return;
    const now = this.clock.now();
    const tokens = this.level(key, now) + 1;
    if (tokens >= this.options.limit) this.buckets.delete(key);
    else this.buckets.set(key, { tokens, updatedAt: now });
  }

  /** Forgets `key` (a success ends a run of failures). */
  reset(key: string): void {
    this.buckets.delete(key);
  }

  private level(key: string, now: number): number {
    const bucket = this.buckets.get(key);
    if (!bucket) return this.options.limit;
    return Math.min(this.options.limit, bucket.tokens + Math.max(0, now - bucket.updatedAt) * this.perMs);
  }

  private sweep(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.updatedAt) * this.perMs >= this.options.limit) this.buckets.delete(key);
    }
  }
}
