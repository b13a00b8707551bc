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
const COLON = 0x3a;
const SPACE = 0x20;
const BOM = 0xfeff;

/**
 * An incremental SSE decoder: feed it byte or string chunks cut anywhere (inside a line, between
 * `\r` and `\n`, inside a multi-byte UTF-8 character) and it pushes each complete event to the
 * sink. Only the new text of each chunk is scanned; the unfinished line is the only carry-over.
 * `retry:` and unknown fields are ignored (this decoder never reconnects).
 */
export class SseDecoder {
  readonly #sink: SseSink;
  readonly #utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
  #started = false;
  /** The unfinished last line of the text seen so far. */
  #partial = '';
  /** The previous chunk ended in `\r`: a `\n` opening the next one belongs to that line break. */
  #skipLineFeed = false;
  #data: string[] = [];
  #eventType = '';
  #lastEventId = '';

  constructor(sink: SseSink) {
    this.#sink = sink;
  }

  /** Decodes one chunk, pushing every event it completes. */
  push(chunk: Uint8Array | string): void {
    this.#scan(typeof chunk === 'string' ? chunk : this.#utf8.decode(chunk, { stream: true }));
  }

  /**
   * Ends the stream: an event not closed by a blank line is discarded, as the spec requires.
   * Returns whether the stream ended on an event boundary (nothing unfinished was discarded).
   */
  end(): boolean {
    this.#scan(this.#utf8.decode());
    const clean = this.#partial === '' && this.#data.length === 0 && this.#eventType === '';
    this.#partial = '';
    this.#data = [];
    this.#eventType = '';
    return clean;
  }

  #scan(input: string): void {
    let text = input;
    if (!this.#started && text.length > 0) {
      this.#started = true;
      if (text.charCodeAt(0) === BOM) text = text.slice(1);
    }
    const length = text.length;
    let start = 0;
    if (this.#skipLineFeed && length > 0) {
      this.#skipLineFeed = false;
      if (text.charCodeAt(0) === LF) start = 1;
    }
    let nextLf = text.indexOf('\n', start);
    let nextCr = text.indexOf('\r', start);
    while (nextLf !== -1 || nextCr !== -1) {
      let end: number;
      let after: number;
      if (nextCr === -1 || (nextLf !== -1 && nextLf < nextCr)) {
        end = nextLf;
        after = end + 1;
      } else {
        end = nextCr;
        if (end + 1 < length) {
          after = text.charCodeAt(end + 1) === LF ? end + 2 : end + 1;
        } else {
          after = length;
          this.#skipLineFeed = true;
        }
      }
      const piece = text.slice(start, end);
      const line = this.#partial === '' ? piece : this.#partial + piece;
      this.#partial = '';
      start = after;
      if (nextLf !== -1 && nextLf < start) nextLf = text.indexOf('\n', start);
      if (nextCr !== -1 && nextCr < start) nextCr = text.indexOf('\r', start);
      this.#line(line);
    }
    if (start < length) this.#partial += text.slice(start);
  }

  #line(line: string): void {
    if (line === '') return this.#dispatch();
    if (line.charCodeAt(0) === COLON) return; // a comment, often a keep-alive
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(line.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1);
    switch (field) {
      case 'data':
        this.#data.push(value);
        break;
      case 'event':
        this.#eventType = value;
        break;
      case 'id':
        if (!value.includes('\u0000')) this.#lastEventId = value;
        break;
    }
  }

  #dispatch(): void {
    if (this.#data.length === 0) {
      this.#eventType = '';
      return;
    }
    const event: SseEvent = { data: this.#data.join('\n') };
    if (this.#eventType !== '') event.event = this.#eventType;
    if (this.#lastEventId !== '') event.id = this.#lastEventId;
    this.#data = [];
    this.#eventType = '';
    this.#sink(event);
  }
}
