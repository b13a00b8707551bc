import { tablePackr as packr } from './table-packr.js';

/** How many versions of one key are kept: the committed one and the one a transaction just wrote. */
const VERSIONS = 2;

function deepFreeze<V>(value: V): V {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

interface Kept<V> {
  bytes: Buffer;
  value: V;
}

/**
 * Decoded values of one table beside the exact bytes they were decoded from or packed to. A read
 * still fetches the key's bytes from LMDB, so whatever wrote them (this process, another process
 * on the same file, a rolled-back transaction, a cluster node's log entry) is seen at once; it only
 * skips decoding when those bytes are ones kept here. Values are shared and frozen.
 */
export class DecodedValues<V> {
  private readonly kept = new Map<string, Kept<V>[]>();

  constructor(private readonly maxKeys: number) {}

  /** The value `bytes` decode to (`bytes` is kept when new: the caller must not reuse it). */
  decode(key: string, bytes: Buffer): V {
    const versions = this.kept.get(key);
    if (versions) for (const version of versions) if (version.bytes.equals(bytes)) return version.value;
    const value = deepFreeze(packr.unpack(bytes) as V);
    this.keep(key, { bytes, value });
    return value;
  }

  /** Packs `value` as the table stores it and keeps both (`value` is frozen: the caller gives it up). */
  pack(key: string, value: V): Buffer {
    const bytes = Buffer.from(packr.pack(value));
    this.keep(key, { bytes, value: deepFreeze(value) });
    return bytes;
  }

  private keep(key: string, version: Kept<V>): void {
    const versions = this.kept.get(key);
    if (versions) {
      versions.unshift(version);
      if (versions.length > VERSIONS) versions.pop();
      return;
    }
    // A bound on memory, not a correctness matter: the oldest key goes.
    if (this.kept.size >= this.maxKeys) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(key, [version]);
  }
}
