import type { CallItem } from './call-events.js';
import type { CallSnapshot } from './call-machine.js';
import type { CallSession } from './call-session.js';

/**
 * What the hot path of a call reads (every 20 ms input frame: does the call take messages, does it
 * listen, with which session), kept as plain fields and updated once per machine transition, so a
 * frame costs its parse, decode and VAD and no snapshot read. The machine stays the only place the
 * call's state is decided: this is a copy of a few of its fields, refreshed by its subscription.
 */
export class CallView {
  /** The call still takes client messages (it has not begun to close). */
  takesMessages = false;
  /** The call listens to audio: open, not ending, not closing. Audio is dropped otherwise. */
  listening = false;
  /** The session as the machine holds it (replaced, never mutated, on each change). */
  session: CallSession;
  /** The conversation as the machine holds it. */
  items: readonly CallItem[] = [];

  constructor(session: CallSession) {
    this.session = session;
  }

  /** Reads the fields off the machine's snapshot after a transition. */
  observe(snapshot: CallSnapshot): void {
    const { context } = snapshot;
    const active = snapshot.status === 'active';
    this.takesMessages = active && context.closeReason === null;
    this.listening = this.takesMessages && context.ending === null && snapshot.value !== 'connecting';
    this.session = context.session;
    this.items = context.items;
  }

  /** The call's actor stopped (closed, or halted by a store failure): nothing more is taken. */
  stopped(): void {
    this.takesMessages = false;
    this.listening = false;
  }
}
