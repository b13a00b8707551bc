import type { AnyStateMachine } from 'xstate';

/**
 * `machine` persisting its context as it is, for a machine whose context is plain data (no actor
 * refs anywhere in it). XState's `getPersistedSnapshot` walks the whole context to replace actor
 * refs; over plain data it finds none and returns the context itself, so the persisted snapshot is
 * the same without the walk, which over a long conversation is most of a commit's XState work.
 * Everything else (children, history, status) is still XState's own. Mutates and returns `machine`
 * (after `provide`, which makes a new one).
 */
export function persistPlainContext<M extends AnyStateMachine>(machine: M): M {
  const persist = machine.getPersistedSnapshot.bind(machine);
  machine.getPersistedSnapshot = (snapshot, options) => {
    // Without a context XState's walk has nothing to visit; the key keeps its place.
    const persisted = persist({ ...snapshot, context: undefined }, options) as { context?: unknown };
    persisted.context = snapshot.context;
    return persisted as ReturnType<M['getPersistedSnapshot']>;
  };
  return machine;
}
