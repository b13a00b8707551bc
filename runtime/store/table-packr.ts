import { Packr } from 'msgpackr';

/**
 * The encoding an LMDB table stores: msgpack records defined inside each value (no structures
 * shared between values, so each decodes alone). Packing with it gives the bytes `db.put` would
 * write, so bytes packed elsewhere (a cluster log entry, a decoded-value cache) go in as they are
 * through {@link Table.putPacked}.
 */
export const tablePackr = new Packr({ mapsAsObjects: true });
