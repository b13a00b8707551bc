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

/**
 * Counts the tokens of a text that arrives in pieces, equal to `countTokens` of the whole text
 * without keeping it: only the unfinished trailing word is carried from one piece to the next.
 */
export class TokenTally {
  #tokens = 0;
  #carry = '';

  /** Adds the next piece of the text. */
  add(piece: string): void {
    if (piece === '') return;
    const text = this.#carry + piece;
    const cut = safeCut(text);
    if (cut > 0) this.#tokens += countTokens(text.slice(0, cut));
    this.#carry = text.slice(cut);
  }

  /** The tokens of everything added so far. */
  total(): number {
    return this.#tokens + countTokens(this.#carry);
  }
}
