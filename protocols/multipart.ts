import { ensureError } from './errors.js';

/** One part's headers as parsed. */
export interface MultipartPartHead {
  /** The `name` parameter of `Content-Disposition` (may be empty, never absent). */
  name: string;
  /** `filename*` when given, else `filename`, exactly as sent (`''` stays `''`); null for a plain field. */
  filename: string | null;
  /** The part's `Content-Type` value as sent, or null. */
  contentType: string | null;
  /** Every header of the part, names lower-cased; repeated headers are joined with `, `. */
  headers: Record<string, string>;
}

/** Receives parts in order; returning a promise from partData/partEnd pauses the parser until it settles (backpressure). */
export interface MultipartSink {
  /** A part begins; its data follows. */
  partStart(head: MultipartPartHead): void | Promise<void>;
  /** A non-empty piece of the part's body: a view of a written chunk or a fresh copy, never reused by the parser, so it may be kept past the call. */
  partData(chunk: Buffer): void | Promise<void>;
  /** The part's body is complete. */
  partEnd(): void | Promise<void>;
}

/** Thrown for malformed input; the caller turns it into a 400 `invalid_multipart`. */
export class MultipartError extends Error {
  override readonly name = 'MultipartError';
}

const CR = 0x0d;
const LF = 0x0a;
const DASH = 0x2d;
const SPACE = 0x20;
const TAB = 0x09;

/** RFC 2046 `bchars`, 1 to 70 of them, not ending in a space; none is CR, which the search relies on. */
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;
const MEDIA_TYPE = /^\s*([^\s;/]+)\/([^\s;]+)\s*/;

/** The boundary from a Content-Type header value, or null when it is not multipart/form-data with a usable boundary. */
export function multipartBoundary(contentType: string | undefined): string | null {
  if (contentType === undefined) return null;
  const type = MEDIA_TYPE.exec(contentType);
  if (!type || type[1]?.toLowerCase() !== 'multipart' || type[2]?.toLowerCase() !== 'form-data') return null;
  const params = parseParameters(contentType, type[0].length);
  const boundary = params?.get('boundary');
  return boundary !== undefined && BOUNDARY.test(boundary) ? boundary : null;
}

/**
 * Parses `; name=value` pairs from `start` on (values quoted with backslash escapes, or bare up to the
 * next `;`), names lower-cased. Null on a syntax error or a repeated name, which would be ambiguous.
 */
function parseParameters(input: string, start: number): Map<string, string> | null {
  const params = new Map<string, string>();
  let at = start;
  while (at < input.length) {
    at = skipWhitespace(input, at);
    if (at >= input.length) break;
    if (input[at] !== ';') return null;
    at = skipWhitespace(input, at + 1);
    if (at >= input.length || input[at] === ';') continue; // a trailing or doubled `;`
    const eq = input.indexOf('=', at);
    const semicolon = input.indexOf(';', at);
    if (eq === -1 || (semicolon !== -1 && semicolon < eq)) return null;
    const name = input.slice(at, eq).trim().toLowerCase();
    if (name === '' || /[\s"]/.test(name) || params.has(name)) return null;
    at = skipWhitespace(input, eq + 1);
    let value: string;
    if (input[at] === '"') {
      const quoted = readQuoted(input, at);
      if (!quoted) return null;
      value = quoted.value;
      at = quoted.end;
    } else {
      const end = semicolon === -1 ? input.length : semicolon;
      value = input.slice(at, end).trim();
      if (value.includes('"')) return null;
      at = end;
    }
    params.set(name, value);
  }
  return params;
}

function skipWhitespace(input: string, from: number): number {
  let at = from;
  while (at < input.length && (input[at] === ' ' || input[at] === '\t')) at++;
  return at;
}

/**
 * Reads the quoted string opening at `start`. A backslash escapes only `"` and `\` (as Go's `mime`
 * does): browsers and undici never escape a backslash, so `C:\dir\a.txt` must survive.
 */
function readQuoted(input: string, start: number): { value: string; end: number } | null {
  let value = '';
  let from = start + 1;
  for (;;) {
    const quote = input.indexOf('"', from);
    if (quote === -1) return null;
    const slash = input.indexOf('\\', from);
    if (slash !== -1 && slash < quote) {
      const next = input[slash + 1];
      const escapes = next === '"' || next === '\\';
      value += input.slice(from, slash) + (escapes ? next : '\\');
      from = escapes ? slash + 2 : slash + 1;
      continue;
    }
    return { value: value + input.slice(from, quote), end: quote + 1 };
  }
}

/** Decodes an RFC 8187 ext-value (`UTF-8''r%C3%A9sum%C3%A9.txt`); throws on a bad charset or encoding. */
function decodeExtValue(extValue: string): string {
  const match = /^([^']*)'[^']*'(.*)$/.exec(extValue);
  const charset = match?.[1]?.toLowerCase();
  const encoded = match?.[2] ?? '';
  if (charset !== 'utf-8' && charset !== 'iso-8859-1')
    throw new MultipartError(`unsupported filename* value: ${extValue}`);
  const bytes: number[] = [];
  for (let at = 0; at < encoded.length; at++) {
    if (encoded[at] === '%') {
      const hex = encoded.slice(at + 1, at + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) throw new MultipartError(`bad percent-encoding in filename*: ${extValue}`);
      bytes.push(parseInt(hex, 16));
      at += 2;
    } else {
      bytes.push(...Buffer.from(encoded[at] ?? '', 'utf8'));
    }
  }
  if (charset === 'iso-8859-1') return Buffer.from(bytes).toString('latin1');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes));
  } catch (error) {
    throw new MultipartError(`filename* is not valid UTF-8: ${extValue}`, { cause: error });
  }
}

/** Turns a part's header lines into its head; throws when Content-Disposition or its name is missing. */
function partHead(lines: string[]): MultipartPartHead {
  const headers = new Map<string, string>(); // a Map, so a header named __proto__ stays a header
  let disposition: string | undefined;
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon === -1 ? '' : line.slice(0, colon).trim().toLowerCase();
    if (name === '' || /\s/.test(name)) throw new MultipartError(`malformed part header line: ${JSON.stringify(line)}`);
    const value = line.slice(colon + 1).trim();
    if (name === 'content-disposition') {
      if (disposition !== undefined) throw new MultipartError('a part has more than one Content-Disposition');
      disposition = value;
    }
    const seen = headers.get(name);
    headers.set(name, seen === undefined ? value : `${seen}, ${value}`);
  }
  if (disposition === undefined) throw new MultipartError('a part has no Content-Disposition');
  const type = /^\s*([^\s;]+)\s*/.exec(disposition);
  if (!type || type[1]?.toLowerCase() !== 'form-data')
    throw new MultipartError(`Content-Disposition is not form-data: ${disposition}`);
  const params = parseParameters(disposition, type[0].length);
  if (!params) throw new MultipartError(`malformed Content-Disposition: ${disposition}`);
  const name = params.get('name');
  if (name === undefined) throw new MultipartError('a part has no name');
  const extended = params.get('filename*');
  const filename = extended !== undefined ? decodeExtValue(extended) : (params.get('filename') ?? null);
  return { name, filename, contentType: headers.get('content-type') ?? null, headers: Object.fromEntries(headers) };
}

type State = 'preamble' | 'boundary-line' | 'headers' | 'body' | 'done';

/**
 * A push parser: write() chunks as they arrive (await each), then end(). Part bodies are never
 * buffered: between writes the parser holds at most one delimiter length of body (a possible
 * partial `\r\n--boundary` at the end of a chunk) or one header line. Emitted data are views of the
 * written chunks, so a caller must not recycle a chunk's memory after writing it.
 */
export class MultipartParser {
  readonly #sink: MultipartSink;
  readonly #delimiter: Buffer;
  readonly #maxHeaderBytes: number;
  readonly #maxParts: number;
  #state: State = 'preamble';
  /** The end of the last chunk when it is a prefix of the delimiter; a copy. The stream is read as if it opened with CRLF. */
  #carry: Buffer = Buffer.from('\r\n');
  /** The unfinished line of a boundary line or header block; a copy. */
  #line: Buffer = Buffer.alloc(0);
  #headerBytes = 0;
  #headerLines: string[] = [];
  #parts = 0;
  #busy = false;
  #failure: Error | null = null;

  constructor(boundary: string, sink: MultipartSink, limits: { maxHeaderBytes?: number; maxParts?: number } = {}) {
    if (!BOUNDARY.test(boundary)) throw new MultipartError(`unusable multipart boundary: ${JSON.stringify(boundary)}`);
    this.#sink = sink;
    this.#delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
    this.#maxHeaderBytes = limits.maxHeaderBytes ?? 16 * 1024; // counted from the end of the boundary itself
    this.#maxParts = limits.maxParts ?? 100;
  }

  /** Parses one chunk, awaiting the sink; rejects with MultipartError on malformed input, and every later call fails too. */
  async write(chunk: Buffer): Promise<void> {
    if (this.#busy) throw new Error('MultipartParser.write() called before the previous write settled');
    if (this.#failure) throw this.#failure;
    this.#busy = true;
    try {
      await this.#consume(chunk);
    } catch (error) {
      this.#failure = ensureError(error);
      throw this.#failure;
    } finally {
      this.#busy = false;
    }
  }

  /** Ends the body; throws MultipartError when the closing boundary was not seen (body cut short). */
  end(): void {
    if (this.#busy) throw new Error('MultipartParser.end() called before the last write settled');
    if (this.#failure) throw this.#failure;
    if (this.#state !== 'done') {
      this.#failure = new MultipartError('the body ended before the closing boundary');
      throw this.#failure;
    }
  }

  async #consume(chunk: Buffer): Promise<void> {
    let at = 0;
    while (at < chunk.length && this.#state !== 'done') {
      switch (this.#state) {
        case 'preamble':
        case 'body':
          at = await this.#scan(chunk, at);
          break;
        case 'boundary-line':
          at = this.#boundaryLine(chunk, at);
          break;
        case 'headers':
          at = await this.#headers(chunk, at);
          break;
      }
    }
  }

  /** Looks for the delimiter from `at`, emitting (in the body) or dropping (in the preamble) what precedes it. */
  async #scan(chunk: Buffer, at: number): Promise<number> {
    const delimiter = this.#delimiter;
    if (this.#carry.length > 0) {
      // The delimiter has one CR, at its start, so a carried prefix can only complete right here.
      const carry = this.#carry;
      const wanted = delimiter.subarray(carry.length, carry.length + chunk.length - at);
      if (chunk.subarray(at, at + wanted.length).equals(wanted)) {
        if (carry.length + wanted.length < delimiter.length) {
          this.#carry = Buffer.concat([carry, wanted]);
          return chunk.length;
        }
        this.#carry = Buffer.alloc(0);
        await this.#delimiterFound();
        return at + wanted.length;
      }
      this.#carry = Buffer.alloc(0);
      await this.#emit(carry);
    }
    const found = chunk.indexOf(delimiter, at);
    if (found !== -1) {
      await this.#emit(chunk.subarray(at, found));
      await this.#delimiterFound();
      return found + delimiter.length;
    }
    const tailStart = Math.max(at, chunk.length - (delimiter.length - 1));
    const cr = chunk.subarray(tailStart).lastIndexOf(CR);
    let end = chunk.length;
    if (cr !== -1 && chunk.subarray(tailStart + cr).equals(delimiter.subarray(0, chunk.length - tailStart - cr))) {
      end = tailStart + cr;
      this.#carry = Buffer.from(chunk.subarray(end));
    }
    await this.#emit(chunk.subarray(at, end));
    return chunk.length;
  }

  async #emit(data: Buffer): Promise<void> {
    if (this.#state !== 'body' || data.length === 0) return;
    const pending = this.#sink.partData(data);
    if (pending) await pending;
  }

  async #delimiterFound(): Promise<void> {
    if (this.#state === 'body') {
      const pending = this.#sink.partEnd();
      if (pending) await pending;
    }
    this.#state = 'boundary-line';
    this.#headerBytes = 0;
    this.#headerLines = [];
  }

  /** After a delimiter: `--` closes the body, else optional padding and a line break open a part. */
  #boundaryLine(chunk: Buffer, at: number): number {
    const first = this.#line.length > 0 ? this.#line[0] : chunk[at];
    const second = this.#line.length > 1 ? this.#line[1] : chunk[at + 1 - this.#line.length];
    if (first === DASH && (second === undefined || second === DASH)) {
      if (second === undefined) return this.#keepPartialLine(chunk, at);
      this.#state = 'done';
      return chunk.length;
    }
    const read = this.#readLine(chunk, at);
    if (!read) return chunk.length;
    if (!read.line.every((byte) => byte === SPACE || byte === TAB)) {
      if (this.#parts > 0) throw new MultipartError('the boundary is followed by something other than a line break');
      // Still in the preamble, where a lookalike is just text; a CRLF ending it may open the real delimiter.
      this.#state = 'preamble';
      if (read.crlf) this.#carry = Buffer.from('\r\n');
      return read.next;
    }
    if (++this.#parts > this.#maxParts) throw new MultipartError(`more than ${this.#maxParts} parts`);
    this.#state = 'headers';
    return read.next;
  }

  /** Collects header lines up to the blank one, then starts the part. */
  async #headers(chunk: Buffer, from: number): Promise<number> {
    let at = from;
    for (;;) {
      const read = this.#readLine(chunk, at);
      if (!read) return chunk.length;
      at = read.next;
      if (read.line.length === 0) break;
      const text = read.line.toString('utf8');
      const last = this.#headerLines.length - 1;
      if ((text[0] === ' ' || text[0] === '\t') && last >= 0)
        this.#headerLines[last] += ` ${text.trim()}`; // obsolete folding
      else this.#headerLines.push(text);
    }
    const head = partHead(this.#headerLines);
    this.#state = 'body';
    const pending = this.#sink.partStart(head);
    if (pending) await pending;
    return at;
  }

  /**
   * The next whole line (its CRLF or LF ending cut off, `crlf` telling which) and where the chunk
   * resumes, or null when the chunk ends first (the piece is kept). Counts towards the header limit.
   */
  #readLine(chunk: Buffer, at: number): { line: Buffer; next: number; crlf: boolean } | null {
    const lf = chunk.indexOf(LF, at);
    if (lf === -1) {
      this.#keepPartialLine(chunk, at);
      return null;
    }
    this.#countHeaderBytes(lf + 1 - at);
    const piece = chunk.subarray(at, lf);
    let line = this.#line.length > 0 ? Buffer.concat([this.#line, piece]) : piece;
    this.#line = Buffer.alloc(0);
    const crlf = line[line.length - 1] === CR;
    if (crlf) line = line.subarray(0, -1);
    return { line, next: lf + 1, crlf };
  }

  #keepPartialLine(chunk: Buffer, at: number): number {
    this.#countHeaderBytes(chunk.length - at);
    this.#line = Buffer.concat([this.#line, chunk.subarray(at)]);
    return chunk.length;
  }

  #countHeaderBytes(count: number): void {
    this.#headerBytes += count;
    if (this.#headerBytes > this.#maxHeaderBytes)
      throw new MultipartError(`a part header block exceeds ${this.#maxHeaderBytes} bytes`);
  }
}
