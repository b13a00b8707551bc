import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pathBeyondDepth } from '../protocols/json-bounds.js';

const test = suite('JSON depth bound: the first path too deep, as the stack walk found it');

// The walk with an explicit stack this check had before, kept as the reference the recursion must match.
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
function referencePath(value: unknown, maxDepth: number): (string | number)[] | null {
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
test('fixed values: within bounds, exactly at the bound, past it', () => {
  assert.is(pathBeyondDepth({ a: [1, { b: 2 }] }, 3), null);
  assert.is(pathBeyondDepth({ a: { b: {} } }, 2), null, 'an empty container at the bound is fine');
  assert.equal(pathBeyondDepth({ a: { b: { c: 1 } } }, 2), ['a', 'b']);
  assert.equal(pathBeyondDepth([[1], [[2]]], 2), [1, 0]);
  assert.is(pathBeyondDepth('text', 0), null);
});

test('seeded random JSON values: the same path (or null) as the stack walk', () => {
  let seed = 28;
  // mulberry32: a small seeded generator with usable low bits.
  const next = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  };
  const make = (depth: number): unknown => {
    const kind = next() % (depth > 9 ? 3 : 10);
    if (kind < 2) return next() % 100;
    if (kind === 2) return null;
    const size = next() % 4;
    if (kind < 7) return Array.from({ length: size }, () => make(depth + 1));
    return Object.fromEntries(Array.from({ length: size }, (_, i) => [`k${i}`, make(depth + 1)]));
  };
  let deep = 0;
  for (let round = 0; round < 3000; round++) {
    const value = make(0);
    const maxDepth = next() % 8;
    const path = pathBeyondDepth(value, maxDepth);
    assert.equal(path, referencePath(value, maxDepth), JSON.stringify(value));
    if (path && path.length > 1) deep++;
  }
  assert.ok(deep > 300, `only ${deep} values had a path of two steps or more`);
});

test.run();
