import { countTokens } from '../../protocols/tokens.js';

const WORD_CHAR = /^[\p{L}\p{N}]$/u;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Where the trailing word of `text` (and a dangling high surrogate) starts: a safe place to cut. */
function safeCut(text: string): number {
  let end = text.length;
  if (end > 0 && isHighSurrogate(text.charCodeAt(end - 1))) end--;
  let at = end;
  while (at > 0) {
    let start = at - 1;
    if (start > 0 && isLowSurrogate(text.charCodeAt(start)) && isHighSurrogate(text.charCodeAt(start - 1))) start--;
    if (!WORD_CHAR.test(text.slice(start, at))) break;
    at = start;
  }
  return at;
}

/** Text held uncounted up to this many characters: most answers are counted once, if ever. */
const COUNT_AT = 4096;

/**
 * Counts the tokens of a text that arrives in pieces, equal to `countTokens` of the whole text
 * without keeping it: the pieces are joined until {@link COUNT_AT} characters, then counted up
 * to their trailing word, which is carried. An upstream that reports usage never asks for the
 * total, so a short answer is never counted at all (counting showed per chunk in stream profiles).
 */
export class TokenTally {
  #tokens = 0;
  #text = '';

  /** Adds the next piece of the text. */
  add(piece: string): void {
    if (piece === '') return;
    this.#text += piece;
    if (this.#text.length >= COUNT_AT) this.#count();
  }

  /** Counts what is held up to its trailing word, which stays held. */
  #count(): void {
    const text = this.#text;
    const cut = safeCut(text);
    if (cut > 0) this.#tokens += countTokens(text.slice(0, cut));
    this.#text = text.slice(cut);
  }

  /** The tokens of everything added so far. */
  total(): number {
    return this.#tokens + countTokens(this.#text);
  }
}
