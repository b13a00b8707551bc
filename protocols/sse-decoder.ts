import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';

/** One server-sent event as the WHATWG `EventSource` parser dispatches it. */
export interface SseEvent {
  /** The `event:` field; absent for the default `message` type. */
  event?: string;
  /** The `data:` lines joined with `\n`. */
  data: string;
  /** The last event id seen in the stream (it persists across events, as in `EventSource`); absent while empty. */
  id?: string;
}

/** Receives each complete event; may throw to stop decoding (the error leaves `push`). */
export type SseSink = (event: SseEvent) => void;

const LF = 0x0a;
const CR = 0x0d;
const BOM = 0xfeff;

/**
 * An incremental SSE decoder: feed it byte or string chunks cut anywhere (inside a line, between
 * `\r` and `\n`, inside a multi-byte UTF-8 character) and it pushes each complete event to the
 * sink. `retry:` and unknown fields are ignored (this decoder never reconnects).
 *
 * The parsing is eventsource-parser's; this wrapper adds what that library leaves to its caller:
 * bytes in (a character cut between chunks survives) with a leading U+FEFF dropped; the last event
 * id carried across events as `EventSource` does (the library reports each event's own `id:` only,
 * so an `id:` in a block without `data:` is not carried to the next event); a `\r` ending a chunk
 * ends its line at once (the library holds it back until it sees whether `\n` follows, which would
 * delay an event ended by a lone `\r`); and `end()` saying whether the stream stopped on an event
 * boundary.
 */
export class SseDecoder {
  readonly #sink: SseSink;
  readonly #utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
  readonly #parser: EventSourceParser;
  #started = false;
  /** The previous chunk ended in `\r` (passed on as `\r\n`): a `\n` opening the next one is that line break's. */
  #skipLineFeed = false;
  /** The text so far ends inside a line. */
  #midLine = false;
  #lastEventId = '';
  /** While `end()` probes the parser, the events it dispatches go here instead of to the sink. */
  #probe: EventSourceMessage[] | null = null;

  constructor(sink: SseSink) {
    this.#sink = sink;
    this.#parser = createParser({ onEvent: this.#onEvent });
  }

  /** Decodes one chunk, pushing every event it completes. */
  push(chunk: Uint8Array | string): void {
    this.#feed(typeof chunk === 'string' ? chunk : this.#utf8.decode(chunk, { stream: true }));
  }

  /**
   * Ends the stream: an event not closed by a blank line is discarded, as the spec requires.
   * Returns whether the stream ended on an event boundary (nothing unfinished was discarded).
   */
  end(): boolean {
    this.#feed(this.#utf8.decode());
    let clean = !this.#midLine;
    if (clean) {
      // The parser does not show its pending fields, so a `data` line and a blank line make it
      // dispatch them: with nothing pending the probe's event is empty and untyped.
      const probed: EventSourceMessage[] = (this.#probe = []);
      this.#parser.feed('data\n\n');
      this.#probe = null;
      clean = probed.length === 1 && probed[0]!.data === '' && probed[0]!.event === undefined;
    }
    this.#parser.reset();
    this.#midLine = false;
    this.#skipLineFeed = false;
    return clean;
  }

  #feed(input: string): void {
    let text = input;
    if (!this.#started && text.length > 0) {
      this.#started = true;
      if (text.charCodeAt(0) === BOM) text = text.slice(1);
    }
    if (this.#skipLineFeed && text.length > 0) {
      this.#skipLineFeed = false;
      if (text.charCodeAt(0) === LF) text = text.slice(1);
    }
    if (text.length === 0) return;
    const last = text.charCodeAt(text.length - 1);
    this.#midLine = last !== LF && last !== CR;
    if (last === CR) {
      this.#skipLineFeed = true;
      text += '\n';
    }
    this.#parser.feed(text);
  }

  readonly #onEvent = (message: EventSourceMessage): void => {
    if (message.id !== undefined) this.#lastEventId = message.id;
    if (this.#probe) {
      this.#probe.push(message);
      return;
    }
    const event: SseEvent = { data: message.data };
    if (message.event !== undefined) event.event = message.event;
    if (this.#lastEventId !== '') event.id = this.#lastEventId;
    this.#sink(event);
  };
}
