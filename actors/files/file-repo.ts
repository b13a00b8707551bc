import type { Store, Table } from '../../runtime/store/store.js';

/** What text extraction made of a file. */
export type Extraction =
  | { status: 'extracted'; kind: string; chars: number; truncated: boolean; pages?: number }
  | { status: 'unsupported'; reason: string }
  | { status: 'failed'; reason: string };

/** A stored file's metadata; its bytes and extracted text live on disk. */
export interface FileRecord {
  id: string;
  accountId: string;
  filename: string;
  purpose: string;
  bytes: number;
  sha256: string;
  contentType: string;
  createdAt: number;
  extraction: Extraction;
}

/** One page of an account's files. */
export interface FilePage {
  records: FileRecord[];
  hasMore: boolean;
}

/**
 * File metadata in LMDB: `files` by id and `files_by_account` ordered by creation time, so
 * listing is a range read. Writes happen inside the caller's transaction, together with the
 * search index, so metadata and index never disagree.
 */
export class FileRepo {
  private readonly files: Table<FileRecord>;
  private readonly byAccount: Table<true>;

  constructor(store: Store) {
    this.files = store.table<FileRecord>('files');
    this.byAccount = store.table<true>('files_by_account');
  }

  /** The file `id` if `accountId` owns it. */
  get(accountId: string, id: string): FileRecord | undefined {
    const record = this.files.get(id);
    return record?.accountId === accountId ? record : undefined;
  }

  /** Whether a record exists for `id` at all (the orphan sweep). */
  exists(id: string): boolean {
    return this.files.doesExist(id);
  }

  /** Writes `record` (new or replacing); call inside a store transaction. */
  putInTransaction(record: FileRecord): void {
    void this.files.put(record.id, record);
    void this.byAccount.put([record.accountId, record.createdAt, record.id], true);
  }

  /** Deletes `record`; call inside a store transaction. */
  removeInTransaction(record: FileRecord): void {
    void this.files.remove(record.id);
    void this.byAccount.remove([record.accountId, record.createdAt, record.id]);
  }

  /** A page of the account's files, newest first (or oldest first), after the file `after` if given. */
  list(
    accountId: string,
    options: { limit: number; order: 'asc' | 'desc'; after?: string; purpose?: string },
  ): FilePage | undefined {
    const desc = options.order === 'desc';
    let start: unknown[] = desc ? [accountId, Number.MAX_SAFE_INTEGER] : [accountId, 0];
    let skip: string | undefined;
    if (options.after !== undefined) {
      const cursor = this.get(accountId, options.after);
      if (!cursor) return undefined;
      start = [accountId, cursor.createdAt, cursor.id];
      skip = cursor.id;
    }
    const end = desc ? [accountId, 0] : [accountId, Number.MAX_SAFE_INTEGER];
    const records: FileRecord[] = [];
    for (const { key } of this.byAccount.getRange({ start: start as never, end: end as never, reverse: desc })) {
      const id = (key as [string, number, string])[2];
      if (id === skip) continue;
      const record = this.files.get(id);
      if (!record || (options.purpose !== undefined && record.purpose !== options.purpose)) continue;
      if (records.length === options.limit) return { records, hasMore: true };
      records.push(record);
    }
    return { records, hasMore: false };
  }
}
