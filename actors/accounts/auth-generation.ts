import type { Store, Table } from '../../runtime/store/store.js';

const KEY = 'g';

/**
 * One number in the store that every write able to change an authentication answer bumps, in the
 * write's own transaction: a token's update or deletion, any account write except the ledger's
 * balance (status, password, tier, plan, paid total, e-mail). The perimeter keeps what it decoded
 * from the token and account records in memory and re-reads them only when this number moved, so a
 * request costs one small read instead of a hash and three record decodes.
 *
 * Exact, not timed: the bump commits with the change, so whoever sees the change sees the bump.
 * That holds for a write of another process on the same LMDB file (the admin CLI) once reads are
 * refreshed ({@link Store.refreshReads}), and for a write of another cluster node once this node
 * has applied its log entry (the bump is in the same entry, checked like any key it read).
 */
export class AuthGeneration {
  private readonly table: Table<number>;

  constructor(private readonly store: Store) {
    this.table = store.table<number>('auth_generation');
  }

  /** The generation as committed now, by any process: refreshes the read snapshot first. */
  current(): number {
    this.store.refreshReads();
    return this.table.get(KEY) ?? 0;
  }

  /** Bumps the generation inside the caller's transaction (the one writing the change). */
  bumpInTransaction(): void {
    void this.table.put(KEY, (this.table.get(KEY) ?? 0) + 1);
  }
}
