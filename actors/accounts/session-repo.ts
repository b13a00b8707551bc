import type { Clock } from '../../runtime/clock.js';
import { newId, newSecret, sha256Hex } from '../../runtime/ids.js';
import type { Store, Table } from '../../runtime/store/store.js';

/** A login session as stored, keyed by the SHA-256 of its token. */
export interface SessionRecord {
  id: string;
  accountId: string;
  epoch: number;
  createdAt: number;
  expiresAt: number;
}

/** Browser-style login sessions: the token is shown once and stored only as a hash. */
export class SessionRepo {
  private readonly sessions: Table<SessionRecord>;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {
    this.sessions = store.table<SessionRecord>('sessions');
  }

  /** Starts a session for `accountId` at the account's current epoch; returns the token once. */
  async create(accountId: string, epoch: number): Promise<{ token: string; record: SessionRecord }> {
    const token = newSecret('sess_');
    const now = this.clock.now();
    const record: SessionRecord = { id: newId('sess'), accountId, epoch, createdAt: now, expiresAt: now + this.ttlMs };
    await this.sessions.put(sha256Hex(token), record);
    return { token, record };
  }

  /** The live session for `token`, or undefined when unknown or expired (expired ones are removed). */
  find(token: string): SessionRecord | undefined {
    const key = sha256Hex(token);
    const record = this.sessions.get(key);
    if (!record) return undefined;
    if (record.expiresAt <= this.clock.now()) {
      void this.sessions.remove(key);
      return undefined;
    }
    return record;
  }

  /** Ends the session behind `token`. */
  async revoke(token: string): Promise<void> {
    await this.sessions.remove(sha256Hex(token));
  }
}
