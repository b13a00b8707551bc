import { SseDecoder } from '../../protocols/sse-decoder.js';

/** What one SSE stream looked like once it ended. */
export interface SseStreamResult {
  events: number;
  /** The stream ended as it should: `data: [DONE]` (chat) or a `response.completed` event (Responses API). */
  done: boolean;
  /** A `data:` payload (other than [DONE]) that was not JSON, if any. */
  badPayload: string | null;
}

/**
 * Incremental reader of one `text/event-stream` body (on the project's SSE decoder): parses each
 * `data:` payload as JSON like a client would, and calls `onEvent` with the arrival time of the
 * chunk that completed the event. Comment-only blocks (keep-alives) dispatch nothing.
 */
export class SseCounter {
  private readonly decoder = new SseDecoder((event) => this.event(event.data));
  private at = 0;
  private events = 0;
  private lastData: string | null = null;
  private badPayload: string | null = null;
  private completed = false;

  constructor(private readonly onEvent: (at: number) => void) {}

  /** Feeds one received chunk, timestamped `at` (ms, `performance.now()`). */
  push(chunk: Buffer, at: number): void {
    this.at = at;
    this.decoder.push(chunk);
  }

  /** Ends the stream and reports what it carried. */
  finish(): SseStreamResult {
    if (!this.decoder.end()) this.badPayload ??= 'unterminated event at the end of the stream';
    const done = this.lastData === '[DONE]' || this.completed;
    return { events: this.events, done, badPayload: this.badPayload };
  }

  private event(data: string): void {
    this.events += 1;
    this.lastData = data;
    if (data !== '[DONE]' && this.badPayload === null) {
      try {
        this.completed = (JSON.parse(data) as { type?: unknown } | null)?.type === 'response.completed';
      } catch {
        this.badPayload = data.slice(0, 60);
      }
    }
    this.onEvent(this.at);
  }
}
