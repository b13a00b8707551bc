// Which of a session's states mean what to the host: parked out of memory, or still live.
/** States in which a session holds no money and runs no step: it waits only for the client (and a deadline). */
const PARKING_STATES: readonly string[] = ['awaiting_approval', 'completed'];

/**
 * Whether a persisted session may wait parked in the store, out of memory: awaiting approval (for
 * the client or its approval deadline) or completed (for the client's acknowledgement, which may
 * never come).
 */
export function sessionParks(persisted: unknown): boolean {
  const value = (persisted as { value?: unknown } | null)?.value;
  const top =
    typeof value === 'string' ? value : value && typeof value === 'object' ? Object.keys(value)[0] : undefined;
  return top !== undefined && PARKING_STATES.includes(top);
}

/** Top-level states in which a session is still working, waiting, or settling its charge. */
export const LIVE_SESSION_STATES: readonly string[] = ['awaiting_approval', 'running', 'awaiting_user', 'settling'];
