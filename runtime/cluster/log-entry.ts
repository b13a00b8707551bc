import { JetStreamApiError } from '@nats-io/jetstream';
import { Packr } from 'msgpackr';
import { ApiError } from '../../protocols/errors.js';
import type { Key } from '../store/store.js';
import { tablePackr } from '../store/table-packr.js';

// Entries travel as msgpack with plain maps (no shared record structures), so every node decodes every entry alone.
export const packr = new Packr({ useRecords: false });

/**
 * Written values travel in the local store's own encoding ({@link tablePackr}), so a node applies
 * them as they are (`putPacked`), without decoding and encoding each value again. Decodes both that
 * and the plain maps of entries written before (`records` unset).
 */
export const valuePackr = tablePackr;

/** One write of an entry: table, key, and the packed value (null: the key is removed). */
export type Write = [table: string, key: Key, value: Buffer | null];
/** One read an entry depends on: table, key, and the writer it saw (null: never written through the log). */
export type Read = [table: string, key: Key, version: string | null];

/** What goes into the log: a transaction's reads (checked at apply) and writes, from one node. */
export interface Entry {
  tx: string;
  node: string;
  reads: Read[];
  writes: Write[];
  /** Values packed by {@link valuePackr} as records: applied as they are. Unset in entries of older nodes (plain maps: decoded, then put). */
  records?: true;
}

/** How an entry ended: applied, aborted (a read changed), or aborted because this node's fence changed. */
export type Outcome = 'committed' | 'aborted' | 'fenced';

/** A write of this node in flight; `visible` ones (from transactionSync) are seen outside transactions too. */
export interface Overlaid {
  tx: string;
  write: Write;
  visible: boolean;
}

/** What one running transaction callback has read and written so far. */
export class TxContext {
  readonly reads = new Map<string, Read>();
  readonly writes = new Map<string, Map<string, Write>>();
  constructor(readonly tx: string) {}
}

/** Thrown to writers once this node has been fenced: another node took over its work (a 503 to a client, who retries elsewhere). */
export class FencedError extends ApiError {
  override name = 'FencedError';
  constructor(node: string) {
    super('cluster_unavailable', `Node ${node} was fenced by the cluster (another node took over its work); retry.`, {
      retryAfterMs: 1000,
    });
  }
}

/** A transaction that kept losing to concurrent writers on other nodes (a 503: retry). */
export class ConflictError extends ApiError {
  override name = 'ConflictError';
  constructor(attempts: number) {
    super('cluster_unavailable', `The write lost to concurrent writers on other nodes ${attempts} times; retry.`, {
      retryAfterMs: 1000,
    });
  }
}

/** Longest key (as JSON) a write may have: LMDB refuses keys near 2,000 bytes, and a log entry every node must apply cannot fail on one. */
export const MAX_KEY_CHARS = 1500;

/** Whether every write of `writes` has a key LMDB takes (the same answer on every node). */
export function keysFit(writes: readonly Write[]): boolean {
  return writes.every(([table, key]) => table.length + JSON.stringify(key).length <= MAX_KEY_CHARS);
}

/** One key as a string, equal for equal keys (a one-element array is its element). */
export function keyString(key: Key): string {
  return JSON.stringify(Array.isArray(key) && key.length === 1 ? key[0] : key);
}

/** The key of `key`'s version in the local versions table. */
export function versionKey(table: string, key: Key): (string | number)[] {
  return Array.isArray(key) ? [table, ...(key as (string | number)[])] : [table, key as string | number];
}

/** How long a publish keeps retrying while the stream elects a leader (a NATS server was lost). */
const PUBLISH_RETRY_MS = 30_000;

/** Runs `attempt` again while the cluster does not answer (a server died and a leader is being elected), up to a bound. */
export async function whileElecting<T>(attempt: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + PUBLISH_RETRY_MS;
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (err instanceof JetStreamApiError || Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
