import type { CallEmitted } from './call-events.js';

/**
 * Events a client may only see once they are durable: what reports a recorded turn, a billed
 * response or the charge. Everything else (speech signals, refusals, a response's opening) is a
 * signal the client wants at once, and losing it in a crash loses nothing.
 */
const DURABLE_FIRST: ReadonlySet<CallEmitted['type']> = new Set([
  'itemDone',
  'itemTruncated',
  'itemDeleted',
  'responseDone',
  'closed',
]);

/**
 * Signals that need not wait behind anything: a new turn's audio committed (speech stopped) is
 * unrelated to the durable events of earlier turns still waiting, and the client wants it at once.
 */
const OVERTAKING: ReadonlySet<CallEmitted['type']> = new Set(['audioCommitted']);

/**
 * Hands a call's emitted events to `deliver` in the order the machine emitted them, each as soon
 * as it may be seen: at once, unless it must be durable first (then it, and everything after it
 * but the overtaking signals, waits for its commit). The host numbers an actor's events in
 * emission order from 1, so the k-th event emitted is the k-th in the log: `emitted` is fed by the
 * live actor, `committed` by the host's follow of the log. `whenDurable` lets an effect start only
 * once the step that started it is durable, as a step awaited its commit before going on.
 */
export class CallRelay {
  private emittedCount = 0;
  private committedSeq = 0;
  private readonly waiting: { seq: number; event: CallEmitted }[] = [];
  private durableWaiters: { seq: number; resolve: () => void }[] = [];

  constructor(private readonly deliver: (event: CallEmitted) => void) {}

  /** An event the live machine just emitted (not durable yet). */
  emitted(event: CallEmitted): void {
    const seq = ++this.emittedCount;
    if ((this.waiting.length === 0 || OVERTAKING.has(event.type)) && this.mayPass(seq, event)) this.deliver(event);
    else this.waiting.push({ seq, event });
  }

  /** The log is durable up to `seq`: what waited for it is delivered, then who waited for it is told. */
  committed(seq: number): void {
    if (seq <= this.committedSeq) return;
    this.committedSeq = seq;
    while (this.waiting.length > 0 && this.mayPass(this.waiting[0]!.seq, this.waiting[0]!.event))
      this.deliver(this.waiting.shift()!.event);
    if (this.durableWaiters.length === 0) return;
    const ready = this.durableWaiters.filter((waiter) => waiter.seq <= seq);
    this.durableWaiters = this.durableWaiters.filter((waiter) => waiter.seq > seq);
    for (const waiter of ready) waiter.resolve();
  }

  /** Resolves once every event emitted so far is durable (and delivered). */
  whenDurable(): Promise<void> {
    const seq = this.emittedCount;
    if (seq <= this.committedSeq) return Promise.resolve();
    return new Promise((resolve) => this.durableWaiters.push({ seq, resolve }));
  }

  private mayPass(seq: number, event: CallEmitted): boolean {
    return seq <= this.committedSeq || !DURABLE_FIRST.has(event.type);
  }
}
