import type { ActorStep } from './actor-steps.js';

// A step of the history stored as a change to the same actor's previous step. The persisted
// context is the live XState context: `assign` makes a new object whose unchanged parts keep their
// identity, so the keys that changed are found by identity, and a conversation that grew keeps its
// elements' identity up to where it changed. A step then costs what changed, not the whole context.

/** Every how many steps a full context is stored even when the previous step is known (reads start there). */
export const KEYFRAME_EVERY = 32;

/** What changed in the context since the previous step (absent fields: nothing of that kind). */
export interface ContextChange {
  /** Top-level keys whose value is new (by identity), with the value. */
  set?: Record<string, unknown>;
  /** Arrays that kept the previous array's first `n` elements: key → [n, the elements after them]. */
  grown?: Record<string, [number, unknown[]]>;
  /** Keys the context no longer has. */
  removed?: string[];
  /** The context's keys in order, when that is not the previous order with new keys at the end. */
  keys?: string[];
}

/** A step stored as a change to step `step − 1` of the same actor. */
export type DeltaStep = Omit<ActorStep, 'context'> & { delta: ContextChange };

/** A step as the history table holds it: full (every step written before deltas, and keyframes) or a change. */
export type StoredStep = ActorStep | DeltaStep;

/** The last step an actor in memory stored: what its next step is a change to. */
export interface StepBase {
  step: number;
  context: unknown;
  /** The last step stored full. */
  keyframe: number;
}

type Plain = Record<string, unknown>;

function isPlain(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `stored` is a change to its previous step rather than a full step. */
export function isDelta(stored: StoredStep): stored is DeltaStep {
  return (stored as Partial<DeltaStep>).delta !== undefined;
}

/**
 * How to store `step` after `base` (null: the previous step is not known in memory): full when
 * there is no base to change, every `every` steps and when either context is not a plain object;
 * otherwise as the change. Returns it with the base the next step is a change to.
 */
export function encodeStep(
  base: StepBase | null,
  step: ActorStep,
  every = KEYFRAME_EVERY,
): { stored: StoredStep; base: StepBase } {
  const { context } = step;
  if (
    !base ||
    base.step !== step.step - 1 ||
    step.step - base.keyframe >= every ||
    !isPlain(base.context) ||
    !isPlain(context)
  )
    return { stored: step, base: { step: step.step, context, keyframe: step.step } };
  const { step: number, ts, cause, upToSeq, status, value } = step;
  const delta: DeltaStep = {
    step: number,
    ts,
    cause,
    upToSeq,
    status,
    value,
    delta: contextChange(base.context, context),
  };
  return { stored: delta, base: { step: step.step, context, keyframe: base.keyframe } };
}

function contextChange(previous: Plain, context: Plain): ContextChange {
  const change: ContextChange = {};
  const keys = Object.keys(context);
  const added: string[] = [];
  for (const key of keys) {
    const value = context[key];
    if (!Object.hasOwn(previous, key)) {
      added.push(key);
      (change.set ??= {})[key] = value;
      continue;
    }
    const before = previous[key];
    if (value === before) continue;
    const kept = Array.isArray(before) && Array.isArray(value) ? sharedPrefix(before, value) : 0;
    if (kept > 0) (change.grown ??= {})[key] = [kept, (value as unknown[]).slice(kept)];
    else (change.set ??= {})[key] = value;
  }
  const previousKeys = Object.keys(previous);
  const removed = previousKeys.filter((key) => !Object.hasOwn(context, key));
  if (removed.length > 0) change.removed = removed;
  if (!sameOrder(keys, previousKeys, removed, added)) change.keys = keys;
  return change;
}

/** How many leading elements `after` shares with `before`, by identity. */
function sharedPrefix(before: readonly unknown[], after: readonly unknown[]): number {
  const end = Math.min(before.length, after.length);
  let n = 0;
  while (n < end && before[n] === after[n]) n++;
  return n;
}

/** Whether `keys` is `previousKeys` without `removed`, then `added`: the order `applyChange` rebuilds by itself. */
function sameOrder(keys: string[], previousKeys: string[], removed: string[], added: string[]): boolean {
  if (keys.length !== previousKeys.length - removed.length + added.length) return false;
  const gone = new Set(removed);
  let i = 0;
  for (const key of previousKeys) if (!gone.has(key) && keys[i++] !== key) return false;
  for (const key of added) if (keys[i++] !== key) return false;
  return true;
}

/**
 * The full step `stored` is, given the full step before it (`previous`, required for a change):
 * undefined when a change has no previous step to apply to (a step before it is missing).
 */
export function fullStep(previous: ActorStep | undefined, stored: StoredStep): ActorStep | undefined {
  if (!isDelta(stored)) return stored;
  if (!previous || previous.step !== stored.step - 1 || !isPlain(previous.context)) return undefined;
  const { delta, ...rest } = stored;
  return { ...rest, context: applyChange(previous.context, delta) };
}

function applyChange(previous: Plain, { set = {}, grown = {}, removed = [], keys }: ContextChange): Plain {
  const gone = new Set(removed);
  const order = keys ?? [
    ...Object.keys(previous).filter((key) => !gone.has(key)),
    ...Object.keys(set).filter((key) => !Object.hasOwn(previous, key)),
  ];
  const context: Plain = {};
  for (const key of order) {
    if (Object.hasOwn(set, key)) context[key] = set[key];
    else if (Object.hasOwn(grown, key)) {
      const [kept, tail] = grown[key]!;
      context[key] = [...(previous[key] as unknown[]).slice(0, kept), ...tail];
    } else context[key] = previous[key];
  }
  return context;
}
