import { z } from 'zod';

/** The deepest nesting any JSON body may have: far beyond real requests, far below stack limits. */
export const MAX_JSON_DEPTH = 64;

/** Limits of a `metadata` object: it is stored with the resource, so it stays small. */
export const METADATA_LIMITS = { maxKeys: 64, maxKeyLength: 64, maxDepth: 8, maxBytes: 1024 * 1024 } as const;

/** What {@link pathBeyondDepth} finds below `value` at `depth`: the path from there, or null. */
function beyond(value: unknown, depth: number, maxDepth: number): (string | number)[] | null {
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    if (depth >= maxDepth) return value.length > 0 ? [] : null;
    for (let i = 0; i < value.length; i++) {
      const path = beyond(value[i], depth + 1, maxDepth);
      if (path) return (path.unshift(i), path);
    }
    return null;
  }
  const keys = Object.keys(value);
  if (depth >= maxDepth) return keys.length > 0 ? [] : null;
  // Last key first: the order this walk has always reported the first path in.
  for (let i = keys.length - 1; i >= 0; i--) {
    const path = beyond((value as Record<string, unknown>)[keys[i]!], depth + 1, maxDepth);
    if (path) return (path.unshift(keys[i]!), path);
  }
  return null;
}

/**
 * The path to the first value nested deeper than `maxDepth` levels (the top-level value is level
 * 0), or null. Recursion stops at `maxDepth`, so no input can overflow the stack; no object is
 * made per value walked (every request body is checked).
 */
export function pathBeyondDepth(value: unknown, maxDepth: number): (string | number)[] | null {
  return beyond(value, 0, maxDepth);
}

/** A `metadata` object (any JSON values), bounded in keys, depth and encoded size. */
export const MetadataSchema = z
  .record(z.string(), z.unknown())
  .refine((value) => Object.keys(value).length <= METADATA_LIMITS.maxKeys, `at most ${METADATA_LIMITS.maxKeys} keys`)
  .refine(
    (value) => Object.keys(value).every((key) => key.length <= METADATA_LIMITS.maxKeyLength),
    `keys are at most ${METADATA_LIMITS.maxKeyLength} characters`,
  )
  .refine(
    (value) => pathBeyondDepth(value, METADATA_LIMITS.maxDepth) === null,
    `nested more than ${METADATA_LIMITS.maxDepth} levels deep`,
  )
  .refine(
    (value) => Buffer.byteLength(JSON.stringify(value)) <= METADATA_LIMITS.maxBytes,
    `at most ${METADATA_LIMITS.maxBytes} bytes as JSON`,
  );
