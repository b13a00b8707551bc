import type { Clock } from '../../runtime/clock.js';
import { newId, newSecret, sha256Hex } from '../../runtime/ids.js';
import type { Store, Table } from '../../runtime/store/store.js';
import { AuthGeneration } from './auth-generation.js';

/** The prefix of every API token value, so leaked keys are easy to recognise and scan for. */
export const API_TOKEN_PREFIX = 'sk-svc-';

/** An API token as stored: the value itself is never kept, only its SHA-256. */
export interface TokenRecord {
  id: string;
  accountId: string;
  label: string;
  hash: string;
  lastFour: string;
  requestsPerMinute: number | null;
  enabled: boolean;
  createdAt: number;
}

/** The editable fields of a token; absent fields stay as they are. */
export interface TokenPatch {
  label?: string;
  requestsPerMinute?: number | null;
  enabled?: boolean;
}

/**
 * API tokens, indexed by hash (for the perimeter) and by account (for listings). An update or a
 * deletion bumps the {@link AuthGeneration} in its transaction (a new token needs none: nothing
 * cached can name it).
 */
export class TokenRepo {
  private readonly tokens: Table<TokenRecord>;
  private readonly byHash: Table<string>;
  private readonly byAccount: Table<true>;
  private readonly generation: AuthGeneration;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {
    this.tokens = store.table<TokenRecord>('tokens');
    this.byHash = store.table<string>('token_hashes');
    this.byAccount = store.table<true>('account_tokens');
    this.generation = new AuthGeneration(store);
  }

  /** Writes a new token inside the caller's transaction; returns the record and the value, shown once. */
  createInTransaction(input: { accountId: string; label: string; requestsPerMinute: number | null }): {
    record: TokenRecord;
    value: string;
  } {
    const value = newSecret(API_TOKEN_PREFIX);
    const record: TokenRecord = {
      id: newId('tok'),
      accountId: input.accountId,
      label: input.label,
      hash: sha256Hex(value),
      lastFour: value.slice(-4),
      requestsPerMinute: input.requestsPerMinute,
      enabled: true,
      createdAt: this.clock.now(),
    };
    void this.tokens.put(record.id, record);
    void this.byHash.put(record.hash, record.id);
    void this.byAccount.put([record.accountId, record.id], true);
    return { record, value };
  }

  /** Creates a token in its own transaction. */
  create(input: {
    accountId: string;
    label: string;
    requestsPerMinute: number | null;
  }): Promise<{ record: TokenRecord; value: string }> {
    return this.store.transaction(() => this.createInTransaction(input));
  }

  /** The token whose value is `value`, if any. */
  findByValue(value: string): TokenRecord | undefined {
    const id = this.byHash.get(sha256Hex(value));
    return id === undefined ? undefined : this.tokens.get(id);
  }

  /** The token `id` if it belongs to `accountId`; otherwise undefined, as if it did not exist. */
  findOwned(accountId: string, id: string): TokenRecord | undefined {
    const record = this.tokens.get(id);
    return record && record.accountId === accountId ? record : undefined;
  }

  /** Every token of an account, oldest first. */
  list(accountId: string): TokenRecord[] {
    const out: TokenRecord[] = [];
    for (const { key } of this.byAccount.getRange({ start: [accountId], end: [accountId, '\uffff'] })) {
      const record = this.tokens.get((key as [string, string])[1]);
      if (record) out.push(record);
    }
    return out.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  }

  /** Applies the fields present in `patch`; undefined when the token is not the account's. */
  update(accountId: string, id: string, patch: TokenPatch): Promise<TokenRecord | undefined> {
    return this.store.transaction(() => {
      const current = this.findOwned(accountId, id);
      if (!current) return undefined;
      const next: TokenRecord = {
        ...current,
        ...(patch.label !== undefined && { label: patch.label }),
        ...(patch.requestsPerMinute !== undefined && { requestsPerMinute: patch.requestsPerMinute }),
        ...(patch.enabled !== undefined && { enabled: patch.enabled }),
      };
      void this.tokens.put(id, next);
      this.generation.bumpInTransaction();
      return next;
    });
  }

  /** Deletes the token permanently; false when it is not the account's. */
  delete(accountId: string, id: string): Promise<boolean> {
    return this.store.transaction(() => {
      const current = this.findOwned(accountId, id);
      if (!current) return false;
      void this.tokens.remove(id);
      void this.byHash.remove(current.hash);
      void this.byAccount.remove([accountId, id]);
      this.generation.bumpInTransaction();
      return true;
    });
  }
}
