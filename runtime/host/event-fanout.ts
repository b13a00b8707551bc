import type { Bus } from '../bus/bus.js';
import type { Logger } from '../logger.js';
import type { LogEvent } from './actor-log.js';

/** Receives an actor's events: history first, then live ones, then the end. */
export interface Follower {
  event(event: LogEvent): void;
  end(): void;
}

/** What the host publishes after each commit: the events up to `upTo`, or the actor's end. */
type Batch = { kind: 'events'; upTo: number; events: readonly LogEvent[] } | { kind: 'end'; upTo: number };

interface Watcher {
  sink: Follower;
  /** The last seq this follower has been given. */
  cursor: number;
}

/** Reads an actor's committed log: `after < seq <= upTo`. */
export type LogReader = (id: string, after: number, upTo: number) => LogEvent[];

/**
 * Hands committed events to followers, through the bus (`actor.<id>.events`), so a follower can
 * sit on another node than the actor. A follower gets the log from its cursor first, then live
 * batches; one that is caught up gets the very objects just committed (one decode shared by all),
 * one that fell behind reads the gap from the log. A failing follower costs the others nothing.
 */
export class EventFanout {
  private readonly watched = new Map<string, { watchers: Set<Watcher>; unsubscribe: () => void }>();

  constructor(
    private readonly bus: Bus,
    private readonly read: LogReader,
    private readonly logger: Logger,
  ) {}

  /** The subject an actor's committed events travel on. */
  static subject(id: string): string {
    return `actor.${id}.events`;
  }

  /** Publishes a commit's events (`upTo` is the last committed seq). */
  published(id: string, upTo: number, events: readonly LogEvent[]): void {
    this.bus.publish(EventFanout.subject(id), { kind: 'events', upTo, events } satisfies Batch);
  }

  /** Publishes that the actor finished (or was removed): followers get what is left, then the end. */
  ended(id: string, upTo: number): void {
    this.bus.publish(EventFanout.subject(id), { kind: 'end', upTo } satisfies Batch);
  }

  /**
   * Follows `id` from `after`. `committedSeq` is the actor's last committed seq while it is live,
   * or null when it is not: then the history is all there is, and the end follows it.
   */
  follow(id: string, after: number, sink: Follower, committedSeq: number | null): () => void {
    if (committedSeq === null) {
      for (const event of this.read(id, after, Number.MAX_SAFE_INTEGER)) sink.event(event);
      sink.end();
      return () => {};
    }
    const watcher: Watcher = { sink, cursor: Math.max(after, committedSeq) };
    const entry = this.watch(id);
    for (const event of this.read(id, after, committedSeq)) sink.event(event);
    entry.watchers.add(watcher);
    return () => this.unwatch(id, watcher);
  }

  private watch(id: string): { watchers: Set<Watcher>; unsubscribe: () => void } {
    let entry = this.watched.get(id);
    if (!entry) {
      const watchers = new Set<Watcher>();
      const unsubscribe = this.bus.subscribe(EventFanout.subject(id), (message) =>
        this.deliver(id, watchers, message as Batch),
      );
      this.watched.set(id, (entry = { watchers, unsubscribe }));
    }
    return entry;
  }

  private unwatch(id: string, watcher: Watcher): void {
    const entry = this.watched.get(id);
    if (!entry) return;
    entry.watchers.delete(watcher);
    if (entry.watchers.size === 0) {
      entry.unsubscribe();
      this.watched.delete(id);
    }
  }

  private deliver(id: string, watchers: Set<Watcher>, batch: Batch): void {
    const freshFrom = batch.kind === 'events' && batch.events.length > 0 ? batch.events[0]!.seq - 1 : batch.upTo;
    for (const watcher of [...watchers]) {
      try {
        if (watcher.cursor < batch.upTo) {
          const events =
            batch.kind === 'events' && watcher.cursor === freshFrom
              ? batch.events
              : this.read(id, watcher.cursor, batch.upTo);
          watcher.cursor = batch.upTo;
          for (const event of events) watcher.sink.event(event);
        }
        if (batch.kind === 'end') {
          this.unwatch(id, watcher);
          watcher.sink.end();
        }
      } catch (err) {
        this.logger.warn('actor follower failed', { actor_id: id, err });
      }
    }
  }
}
