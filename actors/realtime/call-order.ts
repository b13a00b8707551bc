import type { CallEmitted, CallStreamEvent } from './call-events.js';
import type { CallOutput, OutputItem } from './call-output.js';

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

type Started = Extract<CallEmitted, { type: 'responseStarted' }>;
type Done = Extract<CallEmitted, { type: 'responseDone' }>;
type Piece = Extract<CallStreamEvent, { type: 'responseText' | 'responseAudio' | 'responseToolCall' }>;
type CallItem = Extract<OutputItem, { type: 'function_call' }>;

/** One response as the client has been shown it so far. */
interface OpenResponse {
  withAudio: boolean;
  nextIndex: number;
  /** The assistant message's output index, once its first text or audio was shown. */
  messageIndex: number | null;
  calls: Map<string, { item: CallItem; index: number }>;
}

/**
 * The one place that decides in which order a call's client sees its events, as OpenAI's Realtime
 * API sends them. Everything a call shows comes through here: the machine's emitted events (fed
 * live by `emitted`, with the log's progress by `committed`), the line's signals and a response's
 * pieces (`stream`); `deliver` gets them in their final order, and the edge only renders.
 *
 * - The machine's events keep the order it emitted them in; each goes out as soon as it may be
 *   seen: at once, unless it must be durable first (then it, and everything after it but the
 *   overtaking signals, waits for its commit). The host numbers an actor's events in emission
 *   order from 1, so the k-th emitted is the k-th in the log.
 * - The line's signals (speech started, buffer cleared, refusals of audio) go out at once.
 * - A response: `responseStarted`; each output item opened when its first piece arrives (the
 *   assistant message on its first text or audio, a function call on its first argument
 *   fragment), its deltas; at the end every item closed in output order, then `responseDone`. An
 *   item is only shown once it has something, so a response that only calls a tool has no empty
 *   message. Pieces that arrive before their response's opening was shown wait for it.
 *
 * `whenDurable` lets an effect start only once the step that started it is durable.
 */
export class CallOrder {
  private emittedCount = 0;
  private committedSeq = 0;
  private readonly waiting: { seq: number; event: CallEmitted }[] = [];
  private durableWaiters: { seq: number; resolve: () => void }[] = [];
  private readonly responses = new Map<string, OpenResponse>();
  private readonly early = new Map<string, Piece[]>();

  constructor(private readonly deliver: (event: CallOutput) => void) {}

  /** An event the live machine just emitted (not durable yet). */
  emitted(event: CallEmitted): void {
    const seq = ++this.emittedCount;
    if ((this.waiting.length === 0 || OVERTAKING.has(event.type)) && this.mayPass(seq, event)) this.pass(event);
    else this.waiting.push({ seq, event });
  }

  /** The log is durable up to `seq`: what waited for it is delivered, then who waited for it is told. */
  committed(seq: number): void {
    if (seq <= this.committedSeq) return;
    this.committedSeq = seq;
    while (this.waiting.length > 0 && this.mayPass(this.waiting[0]!.seq, this.waiting[0]!.event))
      this.pass(this.waiting.shift()!.event);
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

  /** What streams past the log: a response's pieces in production order, and the line's signals (at once). */
  stream(event: CallStreamEvent): void {
    if (event.type === 'responseText' || event.type === 'responseAudio' || event.type === 'responseToolCall')
      this.piece(event);
    else this.deliver(event);
  }

  private mayPass(seq: number, event: CallEmitted): boolean {
    return seq <= this.committedSeq || !DURABLE_FIRST.has(event.type);
  }

  private pass(event: CallEmitted): void {
    if (event.type === 'responseStarted') this.started(event);
    else if (event.type === 'responseDone') this.done(event);
    else this.deliver(event);
  }

  /** A response began: shown, then any piece that came before it. */
  private started(event: Started): void {
    this.deliver(event);
    this.responses.set(event.responseId, {
      withAudio: event.modalities.includes('audio'),
      nextIndex: 0,
      messageIndex: null,
      calls: new Map(),
    });
    const early = this.early.get(event.responseId);
    this.early.delete(event.responseId);
    for (const piece of early ?? []) this.piece(piece);
  }

  private piece(event: Piece): void {
    const response = this.responses.get(event.responseId);
    if (!response) {
      const waiting = this.early.get(event.responseId);
      if (waiting) waiting.push(event);
      else this.early.set(event.responseId, [event]);
      return;
    }
    const { responseId } = event;
    if (event.type === 'responseToolCall') {
      let call = response.calls.get(event.call.itemId);
      if (!call) {
        const item: CallItem = { type: 'function_call', ...event.call, arguments: '', status: 'in_progress' };
        call = { item, index: response.nextIndex++ };
        response.calls.set(item.itemId, call);
        this.deliver({ type: 'outputItemOpened', responseId, outputIndex: call.index, item: { ...item } });
      }
      call.item.arguments += event.delta;
      if (!event.delta) return;
      const { itemId, callId } = call.item;
      this.deliver({
        type: 'functionArguments',
        responseId,
        itemId,
        callId,
        outputIndex: call.index,
        delta: event.delta,
      });
      return;
    }
    const outputIndex = this.openMessage(responseId, event.itemId, response);
    if (event.type === 'responseText') this.deliver({ ...event, outputIndex, withAudio: response.withAudio });
    else this.deliver({ ...event, outputIndex });
  }

  /** The response ended: each item closed in output order, then `responseDone` (and its bookkeeping dropped). */
  private done(event: Done): void {
    const response = this.responses.get(event.responseId) ?? {
      withAudio: event.modalities.includes('audio'),
      nextIndex: 0,
      messageIndex: null,
      calls: new Map<string, { item: CallItem; index: number }>(),
    };
    this.responses.delete(event.responseId);
    this.early.delete(event.responseId);
    // A response with nothing to show still has its (empty) message, as before function calls.
    if (response.messageIndex === null && (event.text || response.calls.size === 0))
      this.openMessage(event.responseId, event.itemId, response);
    const completed = event.status === 'completed';
    const closed: { index: number; item: OutputItem }[] = [];
    if (response.messageIndex !== null)
      closed.push({
        index: response.messageIndex,
        item: {
          type: 'message',
          itemId: event.itemId,
          withAudio: response.withAudio,
          status: completed ? 'completed' : 'incomplete',
          text: event.text,
        },
      });
    for (const { item, index } of response.calls.values()) {
      // Only a completed response's calls are the client's to run; a cut one's are incomplete.
      const made = completed && event.toolCalls.some((call) => call.itemId === item.itemId);
      closed.push({ index, item: { ...item, status: made ? 'completed' : 'incomplete' } });
    }
    closed.sort((a, b) => a.index - b.index);
    for (const { index, item } of closed)
      this.deliver({ type: 'outputItemClosed', responseId: event.responseId, outputIndex: index, item });
    this.deliver({ ...event, output: closed.map((entry) => entry.item) });
  }

  /** The assistant message's output index, opening it on its first piece. */
  private openMessage(responseId: string, itemId: string, response: OpenResponse): number {
    if (response.messageIndex !== null) return response.messageIndex;
    const index = (response.messageIndex = response.nextIndex++);
    const item: OutputItem = {
      type: 'message',
      itemId,
      withAudio: response.withAudio,
      status: 'in_progress',
      text: '',
    };
    this.deliver({ type: 'outputItemOpened', responseId, outputIndex: index, item });
    return index;
  }
}
