import { createHash } from 'node:crypto';

const SPOKEN = (
  'hello thanks so we need to check the plan for next week and the numbers look good ' +
  'please send me the report when you can I think that works let us meet on monday ' +
  'the team will review it today okay sounds great one more thing about the budget'
).split(' ');

/** A deterministic random source: the same bytes (and salt) always give the same sequence. */
export interface SimRandom {
  /** A number in [0, 1). */
  next(): number;
  /** One item of a non-empty list. */
  pick<T>(list: readonly T[]): T;
}

/** Seeds a SimRandom from a SHA-256 of `bytes`, so outputs follow the input and nothing else. */
export function seedFromBytes(bytes: Uint8Array, salt = ''): SimRandom {
  const digest = createHash('sha256').update(salt).update(bytes).digest();
  let state = digest.readUInt32LE(0) || 1;
  // mulberry32: small, fast and good enough for picking words.
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 0x1_0000_0000;
  };
  return { next, pick: (list) => list[Math.floor(next() * list.length)]! };
}

/** Sim speech: `words` spoken-style words, capitalised and ending with a full stop ('' for none). */
export function simSpeech(random: SimRandom, words: number): string {
  if (words <= 0) return '';
  const picked = Array.from({ length: words }, () => random.pick(SPOKEN));
  const text = picked.join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/** Words per second of sim speech (a calm speaker). */
export const SIM_WORDS_PER_SECOND = 2.5;
