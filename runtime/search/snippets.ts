import { forEachToken, isEmptyQuery, isWordChar, type ParsedQuery } from './text-tokens.js';

/** A span inside a snippet's text (UTF-16 offsets, end exclusive). */
export interface SnippetMatch {
  start: number;
  end: number;
}

/**
 * A window of a document's text around query matches. `text` has whitespace runs collapsed to one
 * space and `…` where the window was cut mid-text; `start`/`end` locate the window in the
 * original text; `matches` are relative to `text`.
 */
export interface Snippet {
  text: string;
  start: number;
  end: number;
  matches: SnippetMatch[];
}

/** How many snippets, how much context, and how much of the text is scanned for matches. */
export interface SnippetOptions {
  max: number;
  /** Characters kept each side of the matched span; default 80. */
  context?: number;
  /** Characters of the text scanned for matches; default 1,000,000 (about 20 ms). Later matches give no snippet. */
  scanLimit?: number;
  /** Matches collected before the scan stops; default 1,000. */
  maxHits?: number;
}

interface Hit {
  unit: number;
  start: number;
  end: number;
}

interface Candidate {
  first: number;
  last: number;
  end: number;
  weight: number;
  hits: number;
}

const ELLIPSIS = '…';

function isWhitespace(code: number): boolean {
  return (
    code === 32 ||
    (code >= 9 && code <= 13) ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** The code point ending just before `index`. */
function charBefore(text: string, index: number): string {
  const from = index >= 2 && isLowSurrogate(text.charCodeAt(index - 1)) ? index - 2 : index - 1;
  return text.slice(from, index);
}

function charAt(text: string, index: number): string {
  return String.fromCodePoint(text.codePointAt(index) ?? 0);
}

/** Finds every occurrence of the query's terms and phrases in the first `scanLimit` characters. */
function findHits(
  text: string,
  query: ParsedQuery,
  scanLimit: number,
  maxHits: number,
): { hits: Hit[]; weights: number[] } {
  const weights: number[] = [];
  const termUnits = new Map<string, number>();
  for (const term of query.terms) termUnits.set(term, weights.push(1) - 1);
  const phrasesByLast = new Map<string, { unit: number; terms: string[] }[]>();
  let longest = 1;
  for (const terms of query.phrases) {
    // A phrase outweighs its words found apart.
    const unit = weights.push(terms.length + 1) - 1;
    const last = terms[terms.length - 1]!;
    phrasesByLast.set(last, [...(phrasesByLast.get(last) ?? []), { unit, terms }]);
    longest = Math.max(longest, terms.length);
  }
  const recentTerms: string[] = new Array<string>(longest).fill('');
  const recentStarts: number[] = new Array<number>(longest).fill(0);
  const hits: Hit[] = [];
  let index = 0;
  forEachToken(text, (term, start, end) => {
    if (start >= scanLimit || hits.length >= maxHits) return false;
    recentTerms[index % longest] = term;
    recentStarts[index % longest] = start;
    const unit = termUnits.get(term);
    if (unit !== undefined) hits.push({ unit, start, end });
    for (const phrase of phrasesByLast.get(term) ?? []) {
      const length = phrase.terms.length;
      if (length > index + 1) continue;
      let matches = true;
      for (let back = 1; back < length && matches; back++) {
        matches = recentTerms[(index - back) % longest] === phrase.terms[length - 1 - back];
      }
      if (matches) hits.push({ unit: phrase.unit, start: recentStarts[(index - length + 1) % longest]!, end });
    }
    index += 1;
    return true;
  });
  hits.sort((a, b) => a.start - b.start || b.end - a.end);
  return { hits, weights };
}

/** For each hit, the cluster of hits starting with it and ending within `context` characters, scored. */
function candidates(hits: readonly Hit[], weights: readonly number[], context: number): Candidate[] {
  const seen = new Array<number>(weights.length).fill(-1);
  const found: Candidate[] = [];
  for (let first = 0; first < hits.length; first++) {
    const anchor = hits[first]!;
    let last = first;
    let end = anchor.end;
    let weight = 0;
    for (let at = first; at < hits.length; at++) {
      const hit = hits[at]!;
      if (at > first && hit.end - anchor.start > context) break;
      last = at;
      end = Math.max(end, hit.end);
      if (seen[hit.unit] !== first) {
        seen[hit.unit] = first;
        weight += weights[hit.unit]!;
      }
    }
    found.push({ first, last, end, weight, hits: last - first + 1 });
  }
  return found.sort((a, b) => b.weight - a.weight || b.hits - a.hits || a.first - b.first);
}

/** The window around [from, to): `context` characters each side, cut at word boundaries, whitespace trimmed. */
function windowAround(text: string, from: number, to: number, context: number): { start: number; end: number } {
  let start = Math.max(0, from - context);
  let end = Math.min(text.length, to + context);
  if (start > 0 && isLowSurrogate(text.charCodeAt(start))) start -= 1;
  if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end += 1;
  if (start > 0 && isWordChar(charBefore(text, start))) {
    while (start < from && isWordChar(charAt(text, start))) start += charAt(text, start).length;
  }
  if (end < text.length && isWordChar(charAt(text, end))) {
    while (end > to && isWordChar(charBefore(text, end))) end -= charBefore(text, end).length;
  }
  while (start < from && isWhitespace(text.charCodeAt(start))) start += 1;
  while (end > to && isWhitespace(text.charCodeAt(end - 1))) end -= 1;
  return { start, end };
}

/** True when non-whitespace text lies before `index` (scanning back over whitespace only). */
function textBefore(text: string, index: number): boolean {
  let at = index - 1;
  while (at >= 0 && isWhitespace(text.charCodeAt(at))) at -= 1;
  return at >= 0;
}

function textAfter(text: string, index: number): boolean {
  let at = index;
  while (at < text.length && isWhitespace(text.charCodeAt(at))) at += 1;
  return at < text.length;
}

/** Cuts the snippet: collapses whitespace, adds ellipses and maps match offsets onto the result. */
function buildSnippet(text: string, start: number, end: number, hits: readonly Hit[]): Snippet {
  const prefix = textBefore(text, start) ? ELLIPSIS : '';
  const offsets = new Int32Array(end - start + 1);
  const pieces: string[] = [prefix];
  let length = prefix.length;
  let runFrom = start;
  for (let at = start; at < end; at++) {
    offsets[at - start] = length + (at - runFrom);
    if (!isWhitespace(text.charCodeAt(at))) continue;
    let after = at + 1;
    while (after < end && isWhitespace(text.charCodeAt(after))) after += 1;
    pieces.push(text.slice(runFrom, at), ' ');
    length += at - runFrom + 1;
    for (let inside = at + 1; inside < after; inside++) offsets[inside - start] = length;
    runFrom = after;
    at = after - 1;
  }
  pieces.push(text.slice(runFrom, end));
  offsets[end - start] = length + (end - runFrom);
  if (textAfter(text, end)) pieces.push(ELLIPSIS);

  const matches: SnippetMatch[] = [];
  for (const hit of hits) {
    if (hit.start < start || hit.end > end) continue;
    const mapped = { start: offsets[hit.start - start]!, end: offsets[hit.end - start]! };
    const previous = matches[matches.length - 1];
    if (previous && mapped.start <= previous.end) previous.end = Math.max(previous.end, mapped.end);
    else matches.push(mapped);
  }
  return { text: pieces.join(''), start, end, matches };
}

/**
 * Up to `max` non-overlapping windows of `text` around the query's matches, best first (the
 * most distinct terms and phrases, then the most matches, then the earliest). Empty when the
 * query has nothing to find or nothing is found in the scanned part of the text.
 */
export function snippets(text: string, query: ParsedQuery, options: SnippetOptions): Snippet[] {
  if (options.max <= 0 || isEmptyQuery(query)) return [];
  const context = Math.max(0, options.context ?? 80);
  const { hits, weights } = findHits(text, query, options.scanLimit ?? 1_000_000, options.maxHits ?? 1_000);
  const chosen: { start: number; end: number }[] = [];
  const result: Snippet[] = [];
  for (const candidate of candidates(hits, weights, context)) {
    if (result.length >= options.max) break;
    const window = windowAround(text, hits[candidate.first]!.start, candidate.end, context);
    if (chosen.some((taken) => window.start < taken.end && taken.start < window.end)) continue;
    chosen.push(window);
    result.push(buildSnippet(text, window.start, window.end, hits));
  }
  return result;
}

/** The first `chars` characters of a text, as a snippet with no highlighted words (for a hit whose match lies past the scan). */
export function openingSnippet(text: string, chars: number): Snippet {
  const end = Math.min(text.length, chars);
  return { text: text.slice(0, end), start: 0, end, matches: [] };
}
