import { createHash } from 'node:crypto';
import type { ChatCompletionRequest } from '../../protocols/chat.js';
import type { ChoiceView } from '../../protocols/chat-response.js';
import type { Clock } from '../../runtime/clock.js';
import type { Store, Table } from '../../runtime/store/store.js';

/** A cached answer: the choices as they were served, and when. */
export interface CachedAnswer {
  choices: ChoiceView[];
  depth: string;
  createdAt: number;
}

// Fields that change how a request is delivered, not what it answers.
const DELIVERY_FIELDS = new Set(['stream', 'stream_options', 'user', 'require_approval']);

/**
 * Answers identical deterministic requests (same account, same normalised body, temperature 0 or
 * absent) from LMDB. Only completed runs are stored; entries expire after `ttlMs`.
 */
export class ResponseCache {
  private readonly table: Table<CachedAnswer>;
  // Written but not yet committed: a repeat request in that window still hits.
  private readonly pending = new Map<string, CachedAnswer>();

  constructor(
    store: Store,
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {
    this.table = store.table<CachedAnswer>('chat_cache');
  }

  /** The cache key of a request, or null when it is not cacheable (sampling, or caching off). */
  keyOf(accountId: string, request: ChatCompletionRequest): string | null {
    if (this.ttlMs <= 0 || (request.temperature != null && request.temperature !== 0)) return null;
    // The validated body in the order the client sent it: a client that reorders keys misses, which is harmless.
    const body = JSON.stringify(request, function (this: unknown, key: string, value: unknown) {
      return this === request && DELIVERY_FIELDS.has(key) ? undefined : value;
    });
    return createHash('sha256').update(accountId).update('\u0000').update(body).digest('hex');
  }

  /** The live entry for `key`, if any; expired entries are removed. */
  get(key: string): CachedAnswer | undefined {
    const entry = this.pending.get(key) ?? this.table.get(key);
    if (!entry) return undefined;
    if (entry.createdAt + this.ttlMs <= this.clock.now()) {
      void this.table.remove(key);
      return undefined;
    }
    return entry;
  }

  /** Stores a completed answer. */
  async put(key: string, choices: ChoiceView[], depth: string): Promise<void> {
    const entry: CachedAnswer = { choices, depth, createdAt: this.clock.now() };
    this.pending.set(key, entry);
    try {
      await this.table.put(key, entry);
    } finally {
      if (this.pending.get(key) === entry) this.pending.delete(key);
    }
  }
}
