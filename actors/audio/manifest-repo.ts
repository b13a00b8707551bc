import type { Store, Table } from '../../runtime/store/store.js';

/** A stored manifest: its exact bytes (what its digest is of) and who it was made for. */
interface ManifestRecord {
  json: string;
  accountId: string;
  createdAt: number;
}

/** Sound-effect verification manifests by the SHA-256 of their bytes; kept for good, they are small. */
export class ManifestRepo {
  private readonly manifests: Table<ManifestRecord>;

  constructor(store: Store) {
    this.manifests = store.table<ManifestRecord>('audio_manifests');
  }

  /** Stores a manifest's exact bytes under their digest; resolves once committed. */
  async put(sha256: string, record: ManifestRecord): Promise<void> {
    await this.manifests.put(sha256, record);
  }

  /** The manifest's exact JSON text, or undefined. */
  get(sha256: string): string | undefined {
    return this.manifests.get(sha256)?.json;
  }
}
