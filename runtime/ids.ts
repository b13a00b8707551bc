import { randomBytes, randomFillSync, createHash, timingSafeEqual } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Random bytes are drawn 4 KiB at a time: one syscall per few hundred ids instead of one per id.
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

function randomByte(): number {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  return pool[poolAt++]!;
}

const ALPHABET_CODES = Buffer.from(ALPHABET, 'latin1');
/** Where an id's characters are put together: one string made per id, not one per character. */
let scratch = Buffer.alloc(64);

/** A random base62 string of `length` characters (about 5.95 bits each). */
export function randomBase62(length: number): string {
  if (scratch.length < length) scratch = Buffer.alloc(length);
  let at = 0;
  while (at < length) {
    const byte = randomByte();
    if (byte < 248) scratch[at++] = ALPHABET_CODES[byte % 62]!; // 248 = 4 × 62: no modulo bias
  }
  return scratch.toString('latin1', 0, length);
}

/** A public identifier such as `acct_…` or `tok_…`: prefix, underscore, 20 base62 characters. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBase62(20)}`;
}

/**
 * An identifier whose keys sort by creation time: prefix, underscore, the time in milliseconds as
 * 12 hex digits, then `random` base62 characters. A table keyed by such ids takes each insert at
 * its end, where random ids would dirty a B-tree leaf anywhere (several page writes per commit).
 */
export function timeOrderedId(prefix: string, nowMs: number, random = 20): string {
  return `${prefix}_${Math.floor(nowMs).toString(16).padStart(12, '0')}${randomBase62(random)}`;
}

/** A secret with 256 bits of entropy, shown to its owner once and stored only as {@link sha256Hex}. */
export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

/** SHA-256 of a secret, hex; how tokens are stored and looked up. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Compares two strings in time independent of where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right);
}
