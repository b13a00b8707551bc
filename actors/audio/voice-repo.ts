import type { Store, Table } from '../../runtime/store/store.js';

/** A cloned voice as stored: who owns it, what it is called and the profile its engine speaks with. */
export interface VoiceRecord {
  id: string;
  accountId: string;
  name: string;
  description: string | null;
  engine: string;
  profile: Record<string, number | string>;
  samples: number;
  sampleSeconds: number;
  metadata: Record<string, unknown> | null;
  createdAt: number;
}

/** A page of an account's voices, newest first. */
export interface VoicePage {
  records: VoiceRecord[];
  hasMore: boolean;
}

/**
 * Cloned voices in the store, keyed by account then voice id, so listing an account's voices is
 * one range read and another account's voice is simply not found.
 */
export class VoiceRepo {
  private readonly voices: Table<VoiceRecord>;

  constructor(store: Store) {
    this.voices = store.table<VoiceRecord>('audio_voices');
  }

  /** The account's voice `id`, or undefined (missing or another account's). */
  get(accountId: string, id: string): VoiceRecord | undefined {
    return this.voices.get([accountId, id]);
  }

  /** Stores a new voice; resolves once committed. */
  async put(record: VoiceRecord): Promise<void> {
    await this.voices.put([record.accountId, record.id], record);
  }

  /** Deletes the account's voice; false when there was none. */
  remove(accountId: string, id: string): Promise<boolean> {
    if (!this.voices.doesExist([accountId, id])) return Promise.resolve(false);
    return this.voices.remove([accountId, id]);
  }

  /** Up to `limit` of the account's voices, newest first, after the voice `after` when given (null when `after` is not the account's). */
  list(accountId: string, limit: number, after?: string): VoicePage | null {
    const all = [...this.voices.getRange({ start: [accountId], end: [`${accountId}\u0000`] })].map(
      (entry) => entry.value,
    );
    all.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
    let from = 0;
    if (after !== undefined) {
      const at = all.findIndex((record) => record.id === after);
      if (at < 0) return null;
      from = at + 1;
    }
    return { records: all.slice(from, from + limit), hasMore: all.length > from + limit };
  }
}
