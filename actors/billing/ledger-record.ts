import type { LedgerEntry } from './ledger-types.js';

/**
 * A ledger entry as stored: its fields in a fixed order, without the field names. One entry is
 * written per charge and kept forever, so the names (108 of an entry's 240 bytes as a msgpack
 * map) were most of what made the store, and the pages LMDB maps, grow with every request.
 * `seq` is the entry's key already ([accountId, seq]) and is not repeated.
 */
export type LedgerRecord = [
  version: typeof RECORD_VERSION,
  type: number,
  id: string,
  amount: number,
  balanceAfter: number,
  description: string,
  requestId: string | null,
  tokenId: string | null,
  model: string | null,
  promptTokens: number,
  completionTokens: number,
  createdAt: number,
];

/** The first element of a record: lets a later layout be told apart from this one. */
const RECORD_VERSION = 1;
const TYPES: readonly LedgerEntry['type'][] = ['charge', 'topup', 'reversal'];

/** The stored form of `entry`. */
export function toLedgerRecord(entry: LedgerEntry): LedgerRecord {
  return [
    RECORD_VERSION,
    TYPES.indexOf(entry.type),
    entry.id,
    entry.amount,
    entry.balanceAfter,
    entry.description,
    entry.requestId,
    entry.tokenId,
    entry.model,
    entry.promptTokens,
    entry.completionTokens,
    entry.createdAt,
  ];
}

/**
 * The entry stored under sequence number `seq`: a record, or an entry written whole (as a map) by
 * an earlier version, which is read as it was.
 */
export function fromLedgerRecord(stored: LedgerRecord | LedgerEntry, seq: number): LedgerEntry {
  if (!Array.isArray(stored)) return stored;
  if (stored[0] !== RECORD_VERSION) throw new Error(`unknown ledger record version ${String(stored[0])}`);
  const type = TYPES[stored[1]];
  if (type === undefined) throw new Error(`unknown ledger entry type ${stored[1]}`);
  return {
    id: stored[2],
    seq,
    type,
    amount: stored[3],
    balanceAfter: stored[4],
    description: stored[5],
    requestId: stored[6],
    tokenId: stored[7],
    model: stored[8],
    promptTokens: stored[9],
    completionTokens: stored[10],
    createdAt: stored[11],
  };
}
