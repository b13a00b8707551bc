import { z } from 'zod';

/** The deepest nesting any JSON body may have: far beyond real requests, far below stack limits. */
export const MAX_JSON_DEPTH = 64;

/** Limits of a `metadata` object: it is stored with the resource, so it stays small. */
export const METADATA_LIMITS = { maxKeys: 64, maxKeyLength: 64, maxDepth: 8, maxBytes: 1024 * 1024 } as const;

interface Frame {
  value: unknown;
  depth: number;
  key: string | number | null;
  parent: Frame | null;
}

function pathOf(frame: Frame): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at: Frame | null = frame; at && at.key !== null; at = at.parent) path.unshift(at.key);
  return path;
}

/**
 * The path to the first value nested deeper than `maxDepth` levels (the top-level value is level
 * 0), or null. Walks with an explicit stack, so no input can overflow ours.
 */
export function pathBeyondDepth(value: unknown, maxDepth: number): (string | number)[] | null {
  const stack: Frame[] = [{ value, depth: 0, key: null, parent: null }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const current = frame.value;
    if (current === null || typeof current !== 'object') continue;
    if (frame.depth >= maxDepth) {
      const entries = Array.isArray(current) ? current.length : Object.keys(current).length;
      if (entries > 0) return pathOf(frame);
      continue;
    }
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--)
        stack.push({ value: current[i], depth: frame.depth + 1, key: i, parent: frame });
    } else {
      for (const [key, child] of Object.entries(current))
        stack.push({ value: child, depth: frame.depth + 1, key, parent: frame });
    }
  }
  return null;
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
