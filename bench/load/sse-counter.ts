import { StringDecoder } from 'node:string_decoder';

/** What one SSE stream looked like once it ended. */
export interface SseStreamResult {
  events: number;
  /** The last event was `data: [DONE]`. */
  done: boolean;
  /** A `data:` payload (other than [DONE]) that was not JSON, if any. */
  badPayload: string | null;
}

/**
 * Incremental reader of one `text/event-stream` body: splits events on blank lines as bytes
 * arrive (scanning only new text), parses each `data:` payload as JSON like a client would, and
 * calls `onEvent` with the arrival time of the chunk that completed the event.
 */
export class SseCounter {
  private readonly decoder = new StringDecoder('utf8');
  private buffer = '';
  private events = 0;
  private lastData: string | null = null;
  private badPayload: string | null = null;

  constructor(private readonly onEvent: (at: number) => void) {}

  /** Feeds one received chunk, timestamped `at` (ms, `performance.now()`). */
  push(chunk: Buffer, at: number): void {
    let scanFrom = Math.max(0, this.buffer.length - 1);
    this.buffer += this.decoder.write(chunk);
    for (;;) {
      const end = this.buffer.indexOf('\n\n', scanFrom);
      if (end < 0) break;
      const dispatched = this.event(this.buffer.slice(0, end));
      this.buffer = this.buffer.slice(end + 2);
      scanFrom = 0;
      if (dispatched) this.onEvent(at);
    }
  }

  /** Ends the stream and reports what it carried. */
  finish(): SseStreamResult {
    this.buffer += this.decoder.end();
    if (this.buffer.trim()) this.badPayload ??= `unterminated event: ${this.buffer.slice(0, 60)}`;
    return { events: this.events, done: this.lastData === '[DONE]', badPayload: this.badPayload };
  }

  /** Handles one event block; comment-only blocks (keep-alives) dispatch nothing. */
  private event(block: string): boolean {
    let data: string | null = null;
    for (const line of block.split('\n')) {
      if (line.startsWith('data:')) data = (data === null ? '' : `${data}\n`) + line.slice(line.startsWith('data: ') ? 6 : 5);
    }
    if (data === null) return false;
    this.events += 1;
    this.lastData = data;
    if (data === '[DONE]' || this.badPayload !== null) return true;
    try {
      JSON.parse(data);
    } catch {
      this.badPayload = data.slice(0, 60);
    }
    return true;
  }
}
