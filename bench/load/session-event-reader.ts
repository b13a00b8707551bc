import { SseDecoder } from '../../protocols/sse-decoder.js';

/** One session event as a follower received it. */
export interface ReceivedEvent {
  seq: number;
  type: string;
  /** The server's `ts` (epoch ms). */
  ts: number;
}

/** How one follower's sequence went: every seq should be the previous + 1, starting at `first`. */
export interface SequenceCheck {
  events: number;
  firstSeq: number | null;
  lastSeq: number | null;
  gaps: number;
  duplicates: number;
  outOfOrder: number;
  /** Payloads that were not JSON with a numeric seq and ts. */
  bad: number;
  /** The first thing that went wrong, for the report. */
  firstProblem: string | null;
}

/**
 * Incremental reader of a session's SSE stream (`id:`, `event:`, `data: {seq,type,ts,data}`), on
 * the project's SSE decoder: skips comments (heartbeats), checks that seqs go
 * up by exactly one, and hands each event with the arrival time of the chunk that completed it.
 */
export class SessionEventReader {
  private readonly decoder = new SseDecoder((event) => {
    const received = this.parse(event.data);
    if (received) this.accept(received, this.at);
  });
  private at = 0;
  readonly check: SequenceCheck = {
    events: 0,
    firstSeq: null,
    lastSeq: null,
    gaps: 0,
    duplicates: 0,
    outOfOrder: 0,
    bad: 0,
    firstProblem: null,
  };

  constructor(private readonly onEvent: (event: ReceivedEvent, at: number) => void) {}

  /** Feeds one received chunk, timestamped `at`. */
  push(chunk: Buffer, at: number): void {
    this.at = at;
    this.decoder.push(chunk);
  }

  /** Whether the stream ended on an event boundary. */
  finish(): boolean {
    return this.decoder.end();
  }

  private problem(text: string): void {
    this.check.firstProblem ??= text;
  }

  private parse(data: string): ReceivedEvent | null {
    try {
      const value = JSON.parse(data) as { seq?: unknown; type?: unknown; ts?: unknown };
      if (typeof value.seq === 'number' && typeof value.ts === 'number')
        return { seq: value.seq, type: String(value.type), ts: value.ts };
    } catch {
      // counted below
    }
    this.check.bad++;
    this.problem(`bad payload: ${data.slice(0, 80)}`);
    return null;
  }

  private accept(event: ReceivedEvent, at: number): void {
    const c = this.check;
    if (c.lastSeq !== null) {
      if (event.seq === c.lastSeq) {
        c.duplicates++;
        this.problem(`duplicate seq ${event.seq}`);
        return;
      }
      if (event.seq < c.lastSeq) {
        c.outOfOrder++;
        this.problem(`seq ${event.seq} after ${c.lastSeq}`);
        return;
      }
      if (event.seq > c.lastSeq + 1) {
        c.gaps++;
        this.problem(`gap: seq ${event.seq} after ${c.lastSeq}`);
      }
    }
    c.firstSeq ??= event.seq;
    c.lastSeq = event.seq;
    c.events++;
    this.onEvent(event, at);
  }
}
