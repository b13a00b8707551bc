import { RESET_BUFFER_MODE } from 'msgpackr';
import { tablePackr } from '../store/table-packr.js';
import type { ActorStep } from './actor-steps.js';
import type { ActorRecord } from './actor-store.js';

/** Where the context goes: packed last, so its bytes may stay in msgpackr's buffer until copied. */
const CONTEXT = new Uint8Array(0);

/** msgpack bytes still in pieces, copied once into one buffer at the end (`CONTEXT`: the context's). */
interface Pieces {
  parts: Uint8Array[];
  length: number;
  /** How many times the context's bytes go in (not in `length`). */
  contexts: number;
}

/**
 * The start of a msgpack record (msgpackr's extension "r") with these keys: its definition as
 * msgpackr writes one, id 0x40, the values to follow. The tables read maps as `Map`s, so the
 * shells around packed parts are records too. A part packed on its own defines its records from
 * 0x40 again; msgpackr reads a record's values with the keys it was defined with, so a later
 * redefinition of its id does not touch it, and nothing after a shell uses its id.
 */
const recordHeads = new Map<string, Uint8Array>();

function recordHead(keys: string[]): Uint8Array {
  const name = keys.join('\0');
  let head = recordHeads.get(name);
  if (!head) {
    const definition = tablePackr.pack(keys);
    head = new Uint8Array(3 + definition.length);
    head.set([0xd4, 0x72, 0x40]);
    head.set(definition, 3);
    // Records, steps and snapshots come in a few shapes; a bound all the same.
    if (recordHeads.size < 256) recordHeads.set(name, head);
  }
  return head;
}

/**
 * `object` as a msgpack record of its own enumerable keys in their order (as msgpackr walks it),
 * with the values of the keys in `given` taken as they are.
 */
function recordPieces(object: object, given: Record<string, Uint8Array | Pieces>): Pieces {
  const values = object as Record<string, unknown>;
  const keys: string[] = [];
  for (const key in values) if (Object.hasOwn(values, key)) keys.push(key);
  const head = recordHead(keys);
  const out: Pieces = { parts: [head], length: head.length, contexts: 0 };
  for (const key of keys) {
    const value = given[key];
    // msgpackr hands out a fresh stretch of its buffer per pack: the bytes stay as they are.
    const part = value ?? tablePackr.pack(values[key]);
    if (part === CONTEXT) {
      out.parts.push(part);
      out.contexts++;
    } else if (part instanceof Uint8Array) {
      out.parts.push(part);
      out.length += part.length;
    } else {
      for (const inner of part.parts) out.parts.push(inner);
      out.length += part.length;
      out.contexts += part.contexts;
    }
  }
  return out;
}

/** Copies `pieces` into `out` from `at`, the context's bytes where it goes; returns where they end. */
function copy(pieces: Pieces, context: Uint8Array, out: Buffer, at: number): number {
  for (const part of pieces.parts) {
    const bytes = part === CONTEXT ? context : part;
    out.set(bytes, at);
    at += bytes.length;
  }
  return at;
}

/** A record and its history step as the store's tables keep them, the context packed once for both. */
export interface PackedCommit {
  record: Buffer;
  step: Buffer;
}

/**
 * Packs `record` and `step` (whose context is the record's snapshot's) with the context packed once:
 * the bytes decode to the same values as packing each on its own (`tablePackr`).
 */
export function packRecordAndStep(record: ActorRecord, step: ActorStep): PackedCommit {
  const snapshot = record.snapshot as { context?: unknown } | null;
  const given: Record<string, Uint8Array | Pieces> = {};
  if (snapshot && typeof snapshot === 'object' && snapshot.context === step.context)
    given.snapshot = recordPieces(snapshot, { context: CONTEXT });
  const recordBytes = recordPieces(record, given);
  const stepBytes = recordPieces(step, { context: CONTEXT });
  // Packed last, after every other piece (msgpackr's buffer is shared by every Packr: a pack with
  // RESET_BUFFER_MODE lets the next one write over it). It stays there until copied out below, so
  // no buffer is taken per commit for its few kilobytes (lmdb-js packs its puts the same way).
  const context = tablePackr.pack(step.context, RESET_BUFFER_MODE);
  const contexts = recordBytes.contexts + stepBytes.contexts;
  // One allocation for both (values this size get an ArrayBuffer each).
  const out = Buffer.allocUnsafe(recordBytes.length + stepBytes.length + contexts * context.length);
  const split = copy(recordBytes, context, out, 0);
  copy(stepBytes, context, out, split);
  return { record: out.subarray(0, split), step: out.subarray(split) };
}
