import type { Clock } from '../clock.js';
import { type Bus, type BusHandler, BusRequestError, type BusResponder, subjectMatches } from './bus.js';

interface Subscription {
  pattern: string;
  handler: BusHandler;
}

/**
 * The bus inside one process: delivery is synchronous and by reference (no copy, no encoding), so
 * fan-out costs a function call per subscriber. Exact subjects are looked up in a map; wildcard
 * subscriptions are matched one by one. A failing handler does not cost the others the message.
 */
export class LocalBus implements Bus {
  private readonly exact = new Map<string, Set<Subscription>>();
  private readonly wildcards = new Set<Subscription>();
  private readonly responders = new Map<string, BusResponder[]>();
  private turn = 0;

  constructor(
    private readonly options: { clock?: Clock; onHandlerError?: (err: unknown, subject: string) => void } = {},
  ) {}

  publish(subject: string, message: unknown): void {
    const direct = this.exact.get(subject);
    if (direct) for (const subscription of [...direct]) this.deliver(subscription, message, subject);
    for (const subscription of this.wildcards)
      if (subjectMatches(subscription.pattern, subject)) this.deliver(subscription, message, subject);
  }

  private deliver(subscription: Subscription, message: unknown, subject: string): void {
    try {
      subscription.handler(message, subject);
    } catch (err) {
      this.options.onHandlerError?.(err, subject);
    }
  }

  subscribe(pattern: string, handler: BusHandler): () => void {
    const subscription: Subscription = { pattern, handler };
    if (/(^|\.)(\*|>)(\.|$)/.test(pattern)) {
      this.wildcards.add(subscription);
      return () => void this.wildcards.delete(subscription);
    }
    let set = this.exact.get(pattern);
    if (!set) this.exact.set(pattern, (set = new Set()));
    set.add(subscription);
    return () => {
      set.delete(subscription);
      if (set.size === 0 && this.exact.get(pattern) === set) this.exact.delete(pattern);
    };
  }

  async request(subject: string, message: unknown, options: { timeoutMs?: number } = {}): Promise<unknown> {
    const candidates = [...this.responders]
      .filter(([pattern]) => subjectMatches(pattern, subject))
      .flatMap(([, list]) => list);
    if (candidates.length === 0) throw new BusRequestError('no_responders', subject);
    // Several responders share the load, as a NATS queue group does.
    const responder = candidates[this.turn++ % candidates.length]!;
    let cancel = () => {};
    const answer = Promise.resolve().then(() => responder(message));
    if (options.timeoutMs === undefined) return answer;
    const timeout = new Promise<never>((_, reject) => {
      const expire = () => reject(new BusRequestError('timeout', subject));
      // A request in flight keeps the process alive (a plain timer) unless a clock drives time.
      const clock = this.options.clock;
      if (clock) {
        const handle = clock.setTimer(expire, options.timeoutMs!);
        cancel = () => clock.clearTimer(handle);
      } else {
        const handle = setTimeout(expire, options.timeoutMs);
        cancel = () => clearTimeout(handle);
      }
    });
    try {
      return await Promise.race([answer, timeout]);
    } finally {
      cancel();
    }
  }

  respond(pattern: string, responder: BusResponder): () => void {
    const list = this.responders.get(pattern) ?? [];
    list.push(responder);
    this.responders.set(pattern, list);
    return () => {
      const left = (this.responders.get(pattern) ?? []).filter((r) => r !== responder);
      if (left.length === 0) this.responders.delete(pattern);
      else this.responders.set(pattern, left);
    };
  }

  close(): Promise<void> {
    this.exact.clear();
    this.wildcards.clear();
    this.responders.clear();
    return Promise.resolve();
  }
}
