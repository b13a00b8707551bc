import type { Clock, TimerHandle } from '../../runtime/clock.js';
import type { Store, Table } from '../../runtime/store/store.js';

/** What one API token has used; money in micro-USD. */
export interface KeyUsageRecord {
  requests: number;
  denied: number;
  promptTokens: number;
  completionTokens: number;
  cost: number;
  lastUsedAt: number | null;
  /** The number of the last counter flush written into this record (tells a reader whether a flush in progress landed). */
  flushed?: number;
}

/** Counts not yet in the store. */
interface Delta {
  requests: number;
  denied: number;
  lastUsedAt: number;
}

const EMPTY: KeyUsageRecord = {
  requests: 0,
  denied: 0,
  promptTokens: 0,
  completionTokens: 0,
  cost: 0,
  lastUsedAt: null,
};

/**
 * Per-token usage. Tokens and cost are written in the same transaction as the charge; request and
 * denial counters are kept in memory and flushed about once a second, so the perimeter never
 * waits on a write (a crash loses at most that second of counts, never money).
 */
export class KeyUsage {
  private readonly table: Table<KeyUsageRecord>;
  private pending = new Map<string, Delta>();
  /** The counts the flush in progress is writing, and its number: counted by readers until they see it landed. */
  private flushing = new Map<string, Delta>();
  /** Starts from the clock, so numbers written by an earlier process are never taken for this one's. */
  private flushNumber: number;
  private flushDone: Promise<void> | null = null;
  private timer: TimerHandle | undefined;
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    flushEveryMs = 1000,
  ) {
    this.flushNumber = clock.now();
    this.table = store.table<KeyUsageRecord>('key_usage');
    if (flushEveryMs > 0) {
      const tick = () => {
        if (this.stopped) return;
        void this.flush();
        this.timer = clock.setTimer(tick, flushEveryMs);
      };
      this.timer = clock.setTimer(tick, flushEveryMs);
    }
  }

  private bump(tokenId: string, field: 'requests' | 'denied'): void {
    let delta = this.pending.get(tokenId);
    if (!delta) this.pending.set(tokenId, (delta = { requests: 0, denied: 0, lastUsedAt: 0 }));
    delta[field] += 1;
    delta.lastUsedAt = this.clock.now();
  }

  /** Counts a request made with the token, allowed or not. */
  countRequest(tokenId: string): void {
    this.bump(tokenId, 'requests');
  }

  /** Counts a request refused (disabled, suspended, rate-limited, unpaid); it was also counted as a request. */
  countDenied(tokenId: string): void {
    this.bump(tokenId, 'denied');
  }

  /** Adds processed tokens and a charge; call inside the charge's transaction. */
  addChargeInTransaction(
    tokenId: string,
    charge: { promptTokens: number; completionTokens: number; cost: number },
  ): void {
    const stored = this.table.get(tokenId);
    const current = stored ?? EMPTY;
    void this.table.put(
      tokenId,
      {
        ...current,
        promptTokens: current.promptTokens + charge.promptTokens,
        completionTokens: current.completionTokens + charge.completionTokens,
        cost: current.cost + charge.cost,
      },
      { value: stored }, // read just now in this transaction: the undo journal need not read it again
    );
  }

  /** The token's usage including counts not yet flushed (or being flushed). */
  get(tokenId: string): KeyUsageRecord {
    let usage = this.table.get(tokenId) ?? EMPTY;
    // The flush in progress counts until its write is visible (the record then carries its number).
    const flushing = usage.flushed === this.flushNumber ? undefined : this.flushing.get(tokenId);
    for (const delta of [flushing, this.pending.get(tokenId)]) {
      if (!delta) continue;
      usage = {
        ...usage,
        requests: usage.requests + delta.requests,
        denied: usage.denied + delta.denied,
        lastUsedAt: Math.max(usage.lastUsedAt ?? 0, delta.lastUsedAt),
      };
    }
    return usage;
  }

  /**
   * Writes pending counters to the store, one flush at a time. The batch stays counted by
   * {@link get} until its write is visible (each written record carries the flush's number), so a
   * read during a flush neither misses nor doubles it.
   */
  async flush(): Promise<void> {
    while (this.flushDone) await this.flushDone;
    if (this.pending.size === 0) return;
    const batch = this.pending;
    const number = ++this.flushNumber;
    this.pending = new Map();
    this.flushing = batch;
    this.flushDone = this.writeBatch(batch, number).finally(() => {
      this.flushing = new Map();
      this.flushDone = null;
    });
    await this.flushDone;
  }

  private writeBatch(batch: ReadonlyMap<string, Delta>, number: number): Promise<void> {
    return this.store.transaction(() => {
      for (const [tokenId, delta] of batch) {
        const current = this.table.get(tokenId) ?? EMPTY;
        void this.table.put(tokenId, {
          ...current,
          requests: current.requests + delta.requests,
          denied: current.denied + delta.denied,
          lastUsedAt: Math.max(current.lastUsedAt ?? 0, delta.lastUsedAt),
          flushed: number,
        });
      }
    });
  }

  /** Stops the flush timer and writes what is pending. */
  async close(): Promise<void> {
    this.stopped = true;
    if (this.timer) this.clock.clearTimer(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
