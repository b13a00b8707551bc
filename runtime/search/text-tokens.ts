// The one tokenizer of the search engine (file search and the docs library alike). Word rules,
// decided once for both sides (stored text and queries are tokenised alike):
// - a word is a maximal run of letters, digits and combining marks (\p{L}\p{N}\p{M});
//   everything else separates, apostrophes and underscores included. So "école" finds
//   "l'école", "john" finds "john's" and "user" finds "user_id", while a quoted "don't" or
//   "user_id" still matches exactly, as the consecutive tokens it becomes on both sides;
// - each Han, Hiragana, Katakana or Hangul character is a token of its own (unigrams), so text
//   without spaces is searchable and a quoted run of such characters is a phrase of them;
// - terms are case- and accent-insensitive (NFKD, marks dropped, lower-cased, a few letters
//   folded: ß→ss, æ→ae, œ→oe, ø→o, ...) and cut at MAX_TERM_LENGTH.

/** One token: its normalised term and where it sits in the original text (UTF-16 offsets, end exclusive). */
export interface Token {
  term: string;
  start: number;
  end: number;
}

/** A parsed search query: free terms (OR'ed) and phrases (each required, as consecutive tokens). */
export interface ParsedQuery {
  terms: string[];
  phrases: string[][];
}

/** Longest term kept, in UTF-16 units; longer words are cut (the same way in queries, so they still match). */
export const MAX_TERM_LENGTH = 64;

/** Most free terms a query keeps; the rest are ignored. */
export const MAX_QUERY_TERMS = 32;

/** Most phrases a query keeps, and most terms per phrase; the rest are ignored. */
export const MAX_QUERY_PHRASES = 8;

const CJK = '\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}\\p{sc=Hangul}';
const WORD_CHAR = `[[\\p{L}\\p{N}\\p{M}]--[${CJK}]]`;
// One pass over the text: group 1 a CJK character, group 2 an all-ASCII word (the fast path:
// lower-casing is its whole normalisation), otherwise any other word.
const TOKEN_SOURCE = `([${CJK}])|([A-Za-z0-9]+(?!${WORD_CHAR}))|${WORD_CHAR}+`;
const NOT_LETTER_OR_DIGIT = /[^\p{L}\p{N}]+/gu;
const FOLDS: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ł: 'l',
  þ: 'th',
  ð: 'd',
  ı: 'i',
  ς: 'σ',
  ĸ: 'q',
};
const FOLDABLE = /[ßæœøđłþðıςĸ]/gu;
const QUOTES = /["“”„]/;
const CONTINUES_WORD = new RegExp(`^${WORD_CHAR}$`, 'v');

function capLength(term: string): string {
  if (term.length <= MAX_TERM_LENGTH) return term;
  const code = term.charCodeAt(MAX_TERM_LENGTH - 1);
  // Never keep half of a surrogate pair.
  return term.slice(0, code >= 0xd800 && code <= 0xdbff ? MAX_TERM_LENGTH - 1 : MAX_TERM_LENGTH);
}

// Unicode normalisation costs about a microsecond a word; words repeat (Zipf), so a bounded memo
// of recent non-ASCII words saves most of it on accented text.
const WORD_MEMO_SIZE = 20_000;
const wordMemo = new Map<string, string>();

/** The term of a non-ASCII word: NFKD, marks and other non-letters dropped, lower-cased, folded, capped; may be ''. */
export function normalizeWord(word: string): string {
  const known = wordMemo.get(word);
  if (known !== undefined) return known;
  const lowered = word.normalize('NFKD').replace(NOT_LETTER_OR_DIGIT, '').toLowerCase();
  const term = capLength(lowered.replace(FOLDABLE, (letter) => FOLDS[letter] ?? letter));
  if (word.length <= MAX_TERM_LENGTH) {
    if (wordMemo.size >= WORD_MEMO_SIZE) wordMemo.clear();
    wordMemo.set(word, term);
  }
  return term;
}

// CJK characters keep their marks (が is not か); NFKC only folds width and compatibility forms.
function normalizeCjk(char: string): string {
  return char.normalize('NFKC');
}

/**
 * Calls `visit(term, start, end)` for every token of `text` in order; a visit returning `false`
 * stops the scan. Allocates no token objects, for indexing and scanning large texts.
 */
export function forEachToken(text: string, visit: (term: string, start: number, end: number) => boolean | void): void {
  const pattern = new RegExp(TOKEN_SOURCE, 'gv');
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(text)) !== null) {
    const raw = match[0];
    let term: string;
    if (match[2] !== undefined) term = capLength(raw.toLowerCase());
    else if (match[1] !== undefined) term = normalizeCjk(raw);
    else term = normalizeWord(raw);
    if (term === '') continue;
    if (visit(term, match.index, match.index + raw.length) === false) return;
  }
}

/** The tokens of `text`, with offsets into the original text (so snippets can be cut from it). */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  forEachToken(text, (term, start, end) => {
    tokens.push({ term, start, end });
  });
  return tokens;
}

/** The terms of `text`, in order. */
export function tokenTerms(text: string): string[] {
  const terms: string[] = [];
  forEachToken(text, (term) => {
    terms.push(term);
  });
  return terms;
}

/**
 * Parses a query: double-quoted segments (also “…” and „…") are phrases, the rest free terms;
 * an unbalanced quote makes the rest of the query a phrase. A one-word phrase is kept as a
 * phrase of one term (a required term); a free term that is also a one-word phrase is dropped,
 * so it is not counted twice. Terms and phrases are de-duplicated and capped.
 */
export function parseQuery(query: string): ParsedQuery {
  const segments = query.split(QUOTES);
  const terms = new Set<string>();
  const phrases = new Map<string, string[]>();
  segments.forEach((segment, index) => {
    const segmentTerms = tokenTerms(segment);
    if (index % 2 === 0) {
      for (const term of segmentTerms) if (terms.size < MAX_QUERY_TERMS) terms.add(term);
    } else if (segmentTerms.length > 0 && phrases.size < MAX_QUERY_PHRASES) {
      const phrase = segmentTerms.slice(0, MAX_QUERY_TERMS);
      phrases.set(phrase.join(' '), phrase);
    }
  });
  for (const phrase of phrases.values()) if (phrase.length === 1) terms.delete(phrase[0]!);
  return { terms: [...terms], phrases: [...phrases.values()] };
}

/** True when the character (one code point) is part of a multi-character word, so cutting beside it may split a word; false for CJK, which is a word by itself. */
export function isWordChar(char: string): boolean {
  return CONTINUES_WORD.test(char);
}

/** True when `query` has nothing to search for. */
export function isEmptyQuery(query: ParsedQuery): boolean {
  return query.terms.length === 0 && query.phrases.length === 0;
}
