import type { ActorRecord } from '../../runtime/host/actor-host.js';
import type { SessionContext } from './session-types.js';

/** A session's persisted snapshot, as far as readers need it. */
export interface SessionSnapshot {
  value: string | Record<string, unknown>;
  context: SessionContext;
}

/** The machine's top-level state name and, while running, the phase. */
export function stateOf(snapshot: SessionSnapshot): { state: string; phase: string | null } {
  if (typeof snapshot.value === 'string') return { state: snapshot.value, phase: null };
  const [state, inner] = Object.entries(snapshot.value)[0] ?? ['unknown', null];
  return { state, phase: typeof inner === 'string' ? inner : null };
}

/** A session as the feature hands it out: its committed state, what views and tools read. */
export interface SessionRecord {
  id: string;
  ownerId: string;
  /** Epoch ms. */
  createdAt: number;
  updatedAt: number;
  /** The seq of its last committed event (0 before any). */
  lastSeq: number;
  state: string;
  /** The step while running, null otherwise. */
  phase: string | null;
  context: SessionContext;
}

/** The session read from its host record (which must be a committed session). */
export function sessionRecordOf(record: ActorRecord): SessionRecord {
  const snapshot = record.snapshot as SessionSnapshot;
  const { state, phase } = stateOf(snapshot);
  return {
    id: record.id,
    ownerId: record.ownerId,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    lastSeq: Math.max(0, record.nextSeq - 1),
    state,
    phase,
    context: snapshot.context,
  };
}
