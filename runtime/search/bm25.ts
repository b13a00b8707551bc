import { forEachToken, isEmptyQuery, type ParsedQuery } from './text-tokens.js';

// The ranking of the search engine, shared by every index (files in the store, the docs library in
// memory): documents are analysed here, and an index only keeps what analysis gave and hands it back
// through a PostingsSource.

/** A text tokenised for an index: its length in tokens and each term's count and first positions. */
export interface AnalyzedDocument {
  length: number;
  terms: Map<string, { tf: number; positions: number[] }>;
}

/** The caps that bound indexing work, storage and query work. */
export interface SearchIndexLimits {
  /** Tokens indexed per document; the rest of a longer text is not searchable. */
  maxTokensPerDocument: number;
  /** Positions kept per (term, document); phrase matches needing later occurrences are missed, tf stays exact. */
  maxPositionsPerTerm: number;
  /**
   * Documents whose positions one query reads to check its phrases, best score bound first;
   * documents past it are not considered (only reached by phrases of very common words in large corpora).
   */
  maxPhraseChecks: number;
}

/** Default caps: 2,000,000 tokens per document (about 12 MB of prose), 10,000 positions per term and document, 20,000 phrase checks per query. */
export const DEFAULT_SEARCH_LIMITS: SearchIndexLimits = {
  maxTokensPerDocument: 2_000_000,
  maxPositionsPerTerm: 10_000,
  maxPhraseChecks: 20_000,
};

/** One field of a document and how much each of its words counts (a heading may weigh more than body text). */
export interface WeightedField {
  text: string;
  weight: number;
}

/** A term's count in one document and the document's length in tokens, for BM25. */
export type Posting = [tf: number, length: number];

/** A term's postings: its document frequency and the documents holding it (only some, when a search is scoped). */
export interface TermPostings {
  df: number;
  docs: Map<string, Posting>;
}

/** What BM25 needs of a corpus: how many documents are indexed and their total length in tokens. */
export interface SearchStats {
  docs: number;
  tokens: number;
}

/** What the ranking reads from an index, whatever keeps it. */
export interface PostingsSource {
  stats: SearchStats;
  /** The term's postings; read at most once per term and query. */
  postings(term: string): TermPostings;
  /** The term's stored positions in one document, ascending; read only for phrases, on candidates. */
  positions(term: string, id: string): readonly number[];
}

/** One ranked document. */
export interface RankedDocument {
  id: string;
  score: number;
}

const K1 = 1.2;
const B = 0.75;

/** Tokenises `text` for an index, keeping at most `limits` tokens and positions. */
export function analyzeDocument(text: string, limits: SearchIndexLimits = DEFAULT_SEARCH_LIMITS): AnalyzedDocument {
  return analyzeFields([{ text, weight: 1 }], limits);
}

/**
 * Tokenises fields of one document: each occurrence adds its field's weight to the term's tf and
 * to the length; positions run on across fields with a gap, so no phrase spans two fields.
 */
export function analyzeFields(
  fields: readonly WeightedField[],
  limits: SearchIndexLimits = DEFAULT_SEARCH_LIMITS,
): AnalyzedDocument {
  const terms = new Map<string, { tf: number; positions: number[] }>();
  let length = 0;
  let position = 0;
  for (const { text, weight } of fields) {
    if (position > 0) position += 1;
    forEachToken(text, (term) => {
      if (position >= limits.maxTokensPerDocument) return false;
      let entry = terms.get(term);
      if (!entry) terms.set(term, (entry = { tf: 0, positions: [] }));
      entry.tf += weight;
      if (entry.positions.length < limits.maxPositionsPerTerm) entry.positions.push(position);
      length += weight;
      position += 1;
      return true;
    });
  }
  return { length, terms };
}

function idf(df: number, docs: number): number {
  return Math.log(1 + (docs - df + 0.5) / (df + 0.5));
}

function bm25(tf: number, weight: number, length: number, avgLength: number): number {
  return (weight * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / avgLength));
}

/** How many times the phrase occurs: start positions where term i sits at start + i for every i. */
function countPhrase(positions: readonly (readonly number[])[]): number {
  let anchor = 0;
  positions.forEach((list, index) => {
    if (list.length < positions[anchor]!.length) anchor = index;
  });
  const cursors = positions.map(() => 0);
  let count = 0;
  outer: for (const anchored of positions[anchor]!) {
    const start = anchored - anchor;
    for (let index = 0; index < positions.length; index++) {
      if (index === anchor) continue;
      const list = positions[index]!;
      let cursor = cursors[index]!;
      while (cursor < list.length && list[cursor]! < start + index) cursor++;
      cursors[index] = cursor;
      if (cursor === list.length) break outer;
      if (list[cursor] !== start + index) continue outer;
    }
    count++;
  }
  return count;
}

/** A term's postings with its idf. */
interface WeightedPostings {
  docs: Map<string, Posting>;
  weight: number;
}

interface Candidate {
  id: string;
  length: number;
  freeScore: number;
  bound: number;
}

/**
 * Documents holding every phrase term, best score bound first. Free terms score exactly; a phrase
 * occurs at most as often as its rarest term in the document, which bounds its part of the score.
 */
function phraseCandidates(
  free: readonly WeightedPostings[],
  phrases: readonly { postings: readonly TermPostings[]; weight: number }[],
  avgLength: number,
): Candidate[] {
  const required = [...new Set(phrases.flatMap((phrase) => phrase.postings))].sort((a, b) => a.docs.size - b.docs.size);
  const candidates: Candidate[] = [];
  for (const [id, [, length]] of required[0]!.docs) {
    if (!required.every((p) => p.docs.has(id))) continue;
    let freeScore = 0;
    for (const { docs, weight } of free) {
      const posting = docs.get(id);
      if (posting) freeScore += bm25(posting[0], weight, length, avgLength);
    }
    let bound = freeScore;
    for (const phrase of phrases) {
      let most = Infinity;
      for (const { docs } of phrase.postings) most = Math.min(most, docs.get(id)![0]);
      bound += bm25(most, phrase.weight, length, avgLength);
    }
    candidates.push({ id, length, freeScore, bound });
  }
  return candidates.sort((a, b) => b.bound - a.bound || (a.id < b.id ? -1 : 1));
}

/** Better first: higher score, then smaller id. */
function ranksBefore(a: RankedDocument, b: RankedDocument): boolean {
  return a.score > b.score || (a.score === b.score && a.id < b.id);
}

/** The best `size` results offered so far: a heap whose root is the worst one kept. */
class BestResults {
  private readonly heap: RankedDocument[] = [];

  constructor(private readonly size: number) {}

  /** The result that a newcomer must beat once the heap is full; undefined before. */
  worst(): RankedDocument | undefined {
    return this.heap.length >= this.size ? this.heap[0] : undefined;
  }

  offer(result: RankedDocument): void {
    const heap = this.heap;
    if (heap.length < this.size) {
      heap.push(result);
      for (let at = heap.length - 1; at > 0;) {
        const parent = (at - 1) >> 1;
        if (!ranksBefore(heap[parent]!, heap[at]!)) break;
        [heap[at], heap[parent]] = [heap[parent]!, heap[at]!];
        at = parent;
      }
      return;
    }
    if (!ranksBefore(result, heap[0]!)) return;
    heap[0] = result;
    for (let at = 0; ;) {
      const left = 2 * at + 1;
      let worst = at;
      if (left < heap.length && ranksBefore(heap[worst]!, heap[left]!)) worst = left;
      if (left + 1 < heap.length && ranksBefore(heap[worst]!, heap[left + 1]!)) worst = left + 1;
      if (worst === at) return;
      [heap[at], heap[worst]] = [heap[worst]!, heap[at]!];
      at = worst;
    }
  }

  sorted(): RankedDocument[] {
    return [...this.heap].sort((a, b) => (ranksBefore(a, b) ? -1 : 1));
  }
}

/** How often the phrase occurs in the document, from the stored positions of its terms. */
function phraseFrequency(source: PostingsSource, id: string, terms: readonly string[]): number {
  const decoded = new Map<string, readonly number[]>();
  const positions = terms.map((term) => {
    let list = decoded.get(term);
    if (!list) decoded.set(term, (list = source.positions(term, id)));
    return list;
  });
  return countPhrase(positions);
}

/**
 * The documents matching `query`, best first (ties by id), at most `maxResults`, ranked with
 * BM25 (k1 1.2, b 0.75). Free terms are OR'ed; every phrase is required as consecutive tokens and
 * scores with its frequency as tf and its rarest term's df.
 */
export function rankBm25(
  source: PostingsSource,
  query: ParsedQuery,
  options: { maxResults: number; maxPhraseChecks: number },
): RankedDocument[] {
  const { stats } = source;
  if (isEmptyQuery(query) || options.maxResults <= 0 || stats.docs === 0) return [];
  const avgLength = Math.max(1, stats.tokens / stats.docs);
  const read = new Map<string, TermPostings>();
  const postingsOf = (term: string): TermPostings => {
    let found = read.get(term);
    if (!found) read.set(term, (found = source.postings(term)));
    return found;
  };
  const free = query.terms.map(postingsOf).map((p) => ({ docs: p.docs, weight: idf(p.df, stats.docs) }));
  const phrases = query.phrases
    .map((terms) => ({ terms, postings: terms.map(postingsOf) }))
    .map((phrase) => ({ ...phrase, weight: idf(Math.min(...phrase.postings.map((p) => p.df)), stats.docs) }));
  const best = new BestResults(options.maxResults);
  if (phrases.length === 0) {
    const scores = new Map<string, number>();
    for (const { docs, weight } of free) {
      for (const [id, [tf, length]] of docs)
        scores.set(id, (scores.get(id) ?? 0) + bm25(tf, weight, length, avgLength));
    }
    for (const [id, score] of scores) best.offer({ id, score });
    return best.sorted();
  }
  // Positions are read best bound first, and only while a candidate could still make the list.
  const checksPositions = phrases.some((phrase) => phrase.terms.length > 1);
  let checks = 0;
  candidates: for (const { id, length, freeScore, bound } of phraseCandidates(free, phrases, avgLength)) {
    const worst = best.worst();
    if (worst && bound < worst.score) break;
    if (checksPositions && checks++ >= options.maxPhraseChecks) break;
    let score = freeScore;
    for (const phrase of phrases) {
      const frequency =
        phrase.terms.length === 1 ? phrase.postings[0]!.docs.get(id)![0] : phraseFrequency(source, id, phrase.terms);
      if (frequency === 0) continue candidates;
      score += bm25(frequency, phrase.weight, length, avgLength);
    }
    best.offer({ id, score });
  }
  return best.sorted();
}
