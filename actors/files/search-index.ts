import type { Store, Table } from '../../runtime/store/store.js';
import { forEachToken, isEmptyQuery, parseQuery, type ParsedQuery } from './text-tokens.js';

/** One file found by {@link SearchIndex.search}. */
export interface SearchResult {
  fileId: string;
  score: number;
}

/** How a search is bounded: at most `maxFiles` results, optionally only the file `fileId`. */
export interface SearchOptions {
  fileId?: string;
  maxFiles: number;
}

/** A text tokenised for the index: its length in tokens and each term's count and first positions. */
export interface AnalyzedDocument {
  length: number;
  terms: Map<string, { tf: number; positions: number[] }>;
}

/** The caps that bound indexing work and storage. */
export interface SearchIndexLimits {
  /** Tokens indexed per document; the rest of a longer text is not searchable. */
  maxTokensPerDocument: number;
  /** Positions kept per (term, file); phrase matches needing later occurrences are missed, tf stays exact. */
  maxPositionsPerTerm: number;
  /**
   * Files whose positions one query reads to check its phrases, best score bound first; files
   * past it are not considered (only reached by phrases of very common words in large accounts).
   */
  maxPhraseChecks: number;
}

/** Default caps: 2,000,000 tokens per document (about 12 MB of prose), 10,000 positions per term and file, 20,000 phrase checks per query. */
export const DEFAULT_SEARCH_LIMITS: SearchIndexLimits = {
  maxTokensPerDocument: 2_000_000,
  maxPositionsPerTerm: 10_000,
  maxPhraseChecks: 20_000,
};

/** Value of a posting: the term's count in the file and the file's length in tokens, for BM25. */
type Posting = [tf: number, length: number];
interface DocumentRow {
  length: number;
  terms: string[];
}
/** What BM25 needs of an account: how many files are indexed and their total length in tokens. */
export interface SearchStats {
  docs: number;
  tokens: number;
}
interface TermPostings {
  df: number;
  files: Map<string, Posting>;
}

const K1 = 1.2;
const B = 0.75;
/** Sorts after every file id (ids are ASCII): the end of one term's postings. */
const KEY_END = '\uffff';

/** Tokenises `text` for the index, keeping at most `limits` tokens and positions. */
export function analyzeDocument(text: string, limits: SearchIndexLimits = DEFAULT_SEARCH_LIMITS): AnalyzedDocument {
  const terms = new Map<string, { tf: number; positions: number[] }>();
  let length = 0;
  forEachToken(text, (term) => {
    if (length >= limits.maxTokensPerDocument) return false;
    let entry = terms.get(term);
    if (!entry) terms.set(term, (entry = { tf: 0, positions: [] }));
    entry.tf += 1;
    if (entry.positions.length < limits.maxPositionsPerTerm) entry.positions.push(length);
    length += 1;
    return true;
  });
  return { length, terms };
}

/** Ascending positions as LEB128 varints of their gaps. */
export function encodePositions(positions: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(positions.length * 5);
  let at = 0;
  let previous = 0;
  for (const position of positions) {
    let gap = position - previous;
    previous = position;
    while (gap >= 0x80) {
      bytes[at++] = (gap & 0x7f) | 0x80;
      gap >>>= 7;
    }
    bytes[at++] = gap;
  }
  return bytes.slice(0, at);
}

/** Decodes {@link encodePositions}. */
export function decodePositions(bytes: Uint8Array): number[] {
  const positions: number[] = [];
  let previous = 0;
  let gap = 0;
  let shift = 0;
  for (const byte of bytes) {
    gap |= (byte & 0x7f) << shift;
    if (byte & 0x80) {
      shift += 7;
      continue;
    }
    previous += gap;
    positions.push(previous);
    gap = 0;
    shift = 0;
  }
  return positions;
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
  files: Map<string, Posting>;
  weight: number;
}

/**
 * Files holding every phrase term, best score bound first. Free terms score exactly; a phrase
 * occurs at most as often as its rarest term in the file, which bounds its part of the score.
 */
function phraseCandidates(
  free: readonly WeightedPostings[],
  phrases: readonly { postings: readonly TermPostings[]; weight: number }[],
  avgLength: number,
): { fileId: string; length: number; freeScore: number; bound: number }[] {
  const required = [...new Set(phrases.flatMap((phrase) => phrase.postings))].sort(
    (a, b) => a.files.size - b.files.size,
  );
  const candidates: { fileId: string; length: number; freeScore: number; bound: number }[] = [];
  for (const [fileId, [, length]] of required[0]!.files) {
    if (!required.every((p) => p.files.has(fileId))) continue;
    let freeScore = 0;
    for (const { files, weight } of free) {
      const posting = files.get(fileId);
      if (posting) freeScore += bm25(posting[0], weight, length, avgLength);
    }
    let bound = freeScore;
    for (const phrase of phrases) {
      let most = Infinity;
      for (const { files } of phrase.postings) most = Math.min(most, files.get(fileId)![0]);
      bound += bm25(most, phrase.weight, length, avgLength);
    }
    candidates.push({ fileId, length, freeScore, bound });
  }
  return candidates.sort((a, b) => b.bound - a.bound || (a.fileId < b.fileId ? -1 : 1));
}

/** Better first: higher score, then smaller fileId. */
function ranksBefore(a: SearchResult, b: SearchResult): boolean {
  return a.score > b.score || (a.score === b.score && a.fileId < b.fileId);
}

/** The best `size` results offered so far: a heap whose root is the worst one kept. */
class BestResults {
  private readonly heap: SearchResult[] = [];

  constructor(private readonly size: number) {}

  /** The result that a newcomer must beat once the heap is full; undefined before. */
  worst(): SearchResult | undefined {
    return this.heap.length >= this.size ? this.heap[0] : undefined;
  }

  offer(result: SearchResult): void {
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

  sorted(): SearchResult[] {
    return [...this.heap].sort((a, b) => (ranksBefore(a, b) ? -1 : 1));
  }
}

/**
 * Keyword search over stored files: an inverted index in LMDB, scoped per account, ranked with
 * BM25. Writes happen inside the caller's transaction, so a file's metadata and its index entries
 * change together.
 *
 * Tables: `search_postings` [accountId, term, fileId] → [tf, docLength];
 * `search_positions` [accountId, term, fileId] → varint gaps of token positions (read only for
 * phrases, on candidate files); `search_docs` [accountId, fileId] → { length, terms } (what to
 * remove); `search_stats` accountId → { docs, tokens } (BM25's N and average length).
 */
export class SearchIndex {
  private readonly postings: Table<Posting>;
  private readonly positions: Table<Uint8Array>;
  private readonly docs: Table<DocumentRow>;
  private readonly stats: Table<SearchStats>;

  constructor(
    store: Store,
    readonly limits: SearchIndexLimits = DEFAULT_SEARCH_LIMITS,
  ) {
    this.postings = store.table<Posting>('search_postings');
    this.positions = store.table<Uint8Array>('search_positions');
    this.docs = store.table<DocumentRow>('search_docs');
    this.stats = store.table<SearchStats>('search_stats');
  }

  /** Tokenises `text` with this index's caps; do it before the transaction to keep the write lock short. */
  analyze(text: string): AnalyzedDocument {
    return analyzeDocument(text, this.limits);
  }

  /** Indexes a file, replacing what was indexed for it; call inside `store.transaction`. */
  addInTransaction(accountId: string, fileId: string, text: string | AnalyzedDocument): void {
    const doc = typeof text === 'string' ? this.analyze(text) : text;
    this.removeInTransaction(accountId, fileId);
    // Sorted keys insert into neighbouring B-tree pages.
    const terms = [...doc.terms.keys()].sort();
    for (const term of terms) {
      const entry = doc.terms.get(term)!;
      void this.postings.put([accountId, term, fileId], [entry.tf, doc.length]);
      void this.positions.put([accountId, term, fileId], encodePositions(entry.positions));
    }
    void this.docs.put([accountId, fileId], { length: doc.length, terms });
    const stats = this.stats.get(accountId) ?? { docs: 0, tokens: 0 };
    void this.stats.put(accountId, { docs: stats.docs + 1, tokens: stats.tokens + doc.length });
  }

  /** Removes a file from the index (nothing when it is not indexed); call inside `store.transaction`. */
  removeInTransaction(accountId: string, fileId: string): void {
    const row = this.docs.get([accountId, fileId]);
    if (!row) return;
    for (const term of row.terms) {
      void this.postings.remove([accountId, term, fileId]);
      void this.positions.remove([accountId, term, fileId]);
    }
    void this.docs.remove([accountId, fileId]);
    const stats = this.stats.get(accountId);
    if (!stats || stats.docs <= 1) void this.stats.remove(accountId);
    else void this.stats.put(accountId, { docs: stats.docs - 1, tokens: stats.tokens - row.length });
  }

  /** The account's document count and total indexed tokens. */
  accountStats(accountId: string): SearchStats {
    return this.stats.get(accountId) ?? { docs: 0, tokens: 0 };
  }

  /**
   * The account's files matching `query`, best first (ties by fileId). Free terms are OR'ed;
   * every phrase is required as consecutive tokens and scores with its frequency as tf and its
   * rarest term's df. With `fileId` only that file is scored, against account-wide statistics.
   */
  search(accountId: string, query: string | ParsedQuery, options: SearchOptions): SearchResult[] {
    const parsed = typeof query === 'string' ? parseQuery(query) : query;
    const stats = this.stats.get(accountId);
    if (isEmptyQuery(parsed) || options.maxFiles <= 0 || !stats || stats.docs === 0) return [];
    const avgLength = Math.max(1, stats.tokens / stats.docs);
    const read = new Map<string, TermPostings>();
    const postingsOf = (term: string): TermPostings => {
      let found = read.get(term);
      if (!found) read.set(term, (found = this.readPostings(accountId, term, options.fileId)));
      return found;
    };
    const free = parsed.terms.map(postingsOf).map((p) => ({ files: p.files, weight: idf(p.df, stats.docs) }));
    const phrases = parsed.phrases
      .map((terms) => ({ terms, postings: terms.map(postingsOf) }))
      .map((phrase) => ({ ...phrase, weight: idf(Math.min(...phrase.postings.map((p) => p.df)), stats.docs) }));
    const best = new BestResults(options.maxFiles);
    if (phrases.length === 0) {
      const scores = new Map<string, number>();
      for (const { files, weight } of free) {
        for (const [fileId, [tf, length]] of files)
          scores.set(fileId, (scores.get(fileId) ?? 0) + bm25(tf, weight, length, avgLength));
      }
      for (const [fileId, score] of scores) best.offer({ fileId, score });
      return best.sorted();
    }
    // Positions are read best bound first, and only while a candidate could still make the list.
    const checksPositions = phrases.some((phrase) => phrase.terms.length > 1);
    let checks = 0;
    candidates: for (const { fileId, length, freeScore, bound } of phraseCandidates(free, phrases, avgLength)) {
      const worst = best.worst();
      if (worst && bound < worst.score) break;
      if (checksPositions && checks++ >= this.limits.maxPhraseChecks) break;
      let score = freeScore;
      for (const phrase of phrases) {
        const frequency =
          phrase.terms.length === 1
            ? phrase.postings[0]!.files.get(fileId)![0]
            : this.phraseFrequency(accountId, fileId, phrase.terms);
        if (frequency === 0) continue candidates;
        score += bm25(frequency, phrase.weight, length, avgLength);
      }
      best.offer({ fileId, score });
    }
    return best.sorted();
  }

  /** The term's postings in the account (only `fileId`'s when given) and its account-wide df. */
  private readPostings(accountId: string, term: string, fileId: string | undefined): TermPostings {
    const files = new Map<string, Posting>();
    const range = { start: [accountId, term], end: [accountId, term, KEY_END] };
    if (fileId !== undefined) {
      const posting = this.postings.get([accountId, term, fileId]);
      if (!posting) return { df: 0, files };
      files.set(fileId, posting);
      return { df: this.postings.getKeysCount(range), files };
    }
    for (const { key, value } of this.postings.getRange(range)) files.set((key as string[])[2]!, value);
    return { df: files.size, files };
  }

  /** How often the phrase occurs in the file, from the stored positions of its terms. */
  private phraseFrequency(accountId: string, fileId: string, terms: readonly string[]): number {
    const decoded = new Map<string, number[]>();
    const positions = terms.map((term) => {
      let list = decoded.get(term);
      if (!list)
        decoded.set(term, (list = decodePositions(this.positions.get([accountId, term, fileId]) ?? new Uint8Array())));
      return list;
    });
    return countPhrase(positions);
  }
}
