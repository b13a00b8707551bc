import { createStore } from '@xstate/store';

/** A token bucket for one API token: `capacity` requests per minute, refilled continuously. */
export interface BucketState {
  capacity: number;
  tokens: number;
  updatedAt: number;
  /** Outcome of the last `take`: granted, or how long until one request fits. */
  granted: boolean;
  retryAfterMs: number;
}

// Used only for its pure `transition`; each token's state lives in the rate limiter's map.
const bucketStore = createStore({
  context: { capacity: 0, tokens: 0, updatedAt: 0, granted: true, retryAfterMs: 0 },
  on: {
    take: (ctx, { now, capacity }: { now: number; capacity: number }): BucketState => {
      // A changed limit starts a full bucket at the new size.
      const base = ctx.capacity === capacity ? ctx : { ...ctx, capacity, tokens: capacity, updatedAt: now };
      const perMs = capacity / 60_000;
      const tokens = Math.min(capacity, base.tokens + Math.max(0, now - base.updatedAt) * perMs);
      if (tokens >= 1) return { capacity, tokens: tokens - 1, updatedAt: now, granted: true, retryAfterMs: 0 };
      return { capacity, tokens, updatedAt: now, granted: false, retryAfterMs: Math.ceil((1 - tokens) / perMs) };
    },
  },
});

/** A full bucket of `capacity`. */
export function createBucket(capacity: number, now: number): BucketState {
  return { capacity, tokens: capacity, updatedAt: now, granted: true, retryAfterMs: 0 };
}

/** Takes one request from the bucket (pure). */
export function takeFromBucket(state: BucketState, now: number, capacity: number): BucketState {
  const [next] = bucketStore.transition(
    { ...bucketStore.getSnapshot(), context: state },
    { type: 'take', now, capacity },
  );
  return next.context;
}
