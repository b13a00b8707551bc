import type { ResponseStreamEvent } from '../../protocols/responses.js';
import type { ResponseEmitter } from './response-assembler.js';

/** Someone reading a running response's events: each event, then the end. */
export interface EventFollower {
  emit(event: ResponseStreamEvent): void;
  end(): void;
}

/**
 * The events of a background response while it runs, for readers that come and go: a reader
 * starts after any sequence number and follows until the end. The run never waits for readers
 * (each reader's own stream buffers and applies backpressure to nobody but itself).
 */
export class LiveEventLog implements ResponseEmitter {
  private readonly events: ResponseStreamEvent[] = [];
  private readonly followers = new Set<EventFollower>();
  private ended = false;

  emit(event: ResponseStreamEvent): void {
    this.events.push(event);
    for (const follower of this.followers) follower.emit(event);
  }

  ready(): null {
    return null;
  }

  /** Replays the events after `after`, then follows; returns the way to stop following. */
  follow(after: number, follower: EventFollower): () => void {
    for (const event of this.events) if (event.sequence_number > after) follower.emit(event);
    if (this.ended) {
      follower.end();
      return () => undefined;
    }
    this.followers.add(follower);
    return () => this.followers.delete(follower);
  }

  /** The run ended: every follower's stream ends. */
  end(): void {
    this.ended = true;
    for (const follower of this.followers) follower.end();
    this.followers.clear();
  }
}
