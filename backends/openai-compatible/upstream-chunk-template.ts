import type { UpstreamChunk } from './upstream-schemas.js';

const KEY = '"content":';
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Re-learning stops after this many templates in one stream (each costs a parse of its own). */
const MAX_LEARNED = 4;

/** Where the JSON string literal starting at `start` ends (after its closing quote); -1 when it does not close. */
function literalEnd(text: string, start: number): number {
  for (let at = start + 1; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === BACKSLASH) at++;
    else if (code === QUOTE) return at + 1;
  }
  return -1;
}

/**
 * The text of an upstream stream's chunks around their `delta.content` string, learned from one
 * chunk: the chunks of one answer usually differ in nothing else (same id, created, model, index,
 * null finish reason), so a chunk whose text is the template's with another string literal in the
 * hole is that chunk with another content, and is read without parsing it again. Only JSON that
 * parses to exactly that is taken: the literal must be a string by itself (plain characters, no
 * quote or control character, or a literal `JSON.parse` accepts), and the hole is proven by parsing
 * the template with a marker in it once. Anything else (the role chunk, the finish, tool calls, an
 * upstream that varies per chunk) goes through the full parse and may teach a new template.
 */
export class UpstreamChunkTemplate {
  #head = '';
  #tail = '';
  /** The chunk the template parses to; its content is replaced by each match (read, never kept). */
  #chunk: UpstreamChunk | null = null;
  #delta: { content?: string | null } | null = null;
  #learned = 0;

  /** The chunk `data` is when it fits the template (the same object each time, with its content); null otherwise. */
  match(data: string): UpstreamChunk | null {
    const delta = this.#delta;
    if (!delta) return null;
    const head = this.#head;
    const tail = this.#tail;
    const end = data.length - tail.length;
    if (end - head.length < 2 || !data.startsWith(head) || !data.endsWith(tail)) return null;
    const content = stringLiteral(data, head.length, end);
    if (content === null) return null;
    delta.content = content;
    return this.#chunk;
  }

  /**
   * Learns the template of `data`, which parsed to `chunk` (already checked as a plain chunk, not
   * an error), when its only choice has a content string.
   */
  learn(data: string, chunk: UpstreamChunk): void {
    if (this.#learned >= MAX_LEARNED || chunk.choices.length !== 1) return;
    if (typeof chunk.choices[0]!.delta?.content !== 'string') return;
    const key = data.indexOf(KEY);
    if (key < 0 || data.includes(KEY, key + KEY.length)) return;
    const start = key + KEY.length;
    if (data.charCodeAt(start) !== QUOTE) return;
    const end = literalEnd(data, start);
    if (end < 0) return;
    this.#learned++;
    const head = data.slice(0, start);
    const tail = data.slice(end);
    // The marker proves the hole is `choices[0].delta.content` (a key written with escapes elsewhere cannot fool it).
    const marked = JSON.parse(`${head}"\\u0000"${tail}`) as UpstreamChunk;
    const delta = marked.choices[0]?.delta;
    if (marked.choices.length !== 1 || delta?.content !== '\u0000') return;
    this.#head = head;
    this.#tail = tail;
    this.#chunk = marked;
    this.#delta = delta;
  }
}

/**
 * The value of the JSON string literal spanning `data[start, end)`, or null when that span is not
 * exactly one string literal JSON accepts. Plain text (no backslash) is sliced; escapes are parsed.
 */
function stringLiteral(data: string, start: number, end: number): string | null {
  if (data.charCodeAt(start) !== QUOTE || data.charCodeAt(end - 1) !== QUOTE) return null;
  let escaped = false;
  for (let at = start + 1; at < end - 1; at++) {
    const code = data.charCodeAt(at);
    if (code === QUOTE || code < 0x20) {
      if (!escaped) return null;
      break; // an escape in play: JSON.parse decides below
    }
    if (code === BACKSLASH) escaped = true;
  }
  if (!escaped) return data.slice(start + 1, end - 1);
  let value: unknown;
  try {
    value = JSON.parse(data.slice(start, end));
  } catch {
    return null;
  }
  return typeof value === 'string' ? value : null;
}
