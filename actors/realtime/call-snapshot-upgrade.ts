import { randomBase62 } from '../../runtime/ids.js';
import type { CallContext } from './call-context.js';
import { defaultCallSession } from './call-session.js';

/** The states of the first call machine (when the socket handler kept the call's phase). */
const FIRST_MACHINE_STATES = ['connecting', 'active', 'responding', 'ending', 'end_ready', 'transcribing', 'closing'];

/**
 * Brings a snapshot persisted by the first call machine to this machine's shape, in place, so a
 * call that was open across the upgrade is closed and charged at boot like any other orphan
 * (restoring an unknown state would fail the boot). Its usage, hold, items and close reason are
 * kept; it resumes as an open, idle call, which the DISCONNECT sent to orphans closes. Snapshots
 * of this machine are left alone.
 */
export function upgradeCallSnapshot(snapshot: unknown): void {
  const persisted = snapshot as {
    value?: unknown;
    context?: Partial<CallContext> & { session?: { model?: unknown } };
    children?: Record<string, unknown>;
  } | null;
  const context = persisted?.context;
  if (!persisted || !context || context.idSeed !== undefined) return;
  if (typeof persisted.value !== 'string' || !FIRST_MACHINE_STATES.includes(persisted.value)) return;
  const model = typeof context.session?.model === 'string' ? context.session.model : 'pro-1';
  persisted.value = { live: 'idle' };
  // The first machine's settle step is run again, under this machine's name for it.
  persisted.children = {};
  Object.assign(context, {
    session: defaultCallSession(model),
    idSeed: randomBase62(14),
    idCount: 0,
    lastItemId: null,
    queue: [],
    turn: null,
    response: null,
    ending: null,
    deadlines: {},
  } satisfies Partial<CallContext>);
}
