import {
  analyzeDocument,
  DEFAULT_SEARCH_LIMITS,
  rankBm25,
  type AnalyzedDocument,
  type Posting,
  type PostingsSource,
  type SearchIndexLimits,
  type SearchStats,
  type TermPostings,
} from '../../runtime/search/bm25.js';
import { parseQuery, type ParsedQuery } from '../../runtime/search/text-tokens.js';
import type { Store, Table } from '../../runtime/store/store.js';

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

interface DocumentRow {
  length: number;
  terms: string[];
}

/** Sorts after every file id (ids are ASCII): the end of one term's postings. */
const KEY_END = '\uffff';

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

/**
 * Keyword search over stored files: an inverted index in LMDB, scoped per account, ranked by the
 * search engine's BM25 (`runtime/search/`). Writes happen inside the caller's transaction, so a
 * file's metadata and its index entries change together.
 *
 * Ours rather than a search library's because it lives in the store with the files: it persists
 * with them, updates incrementally in the same transaction as a file's save or delete, and
 * answers a query by reading only that query's postings, without loading every document.
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
    const stats = this.stats.get(accountId);
    if (!stats) return [];
    const source: PostingsSource = {
      stats,
      postings: (term) => this.readPostings(accountId, term, options.fileId),
      positions: (term, fileId) => decodePositions(this.positions.get([accountId, term, fileId]) ?? new Uint8Array()),
    };
    const parsed = typeof query === 'string' ? parseQuery(query) : query;
    const ranked = rankBm25(source, parsed, {
      maxResults: options.maxFiles,
      maxPhraseChecks: this.limits.maxPhraseChecks,
    });
    return ranked.map(({ id, score }) => ({ fileId: id, score }));
  }

  /** The term's postings in the account (only `fileId`'s when given) and its account-wide df. */
  private readPostings(accountId: string, term: string, fileId: string | undefined): TermPostings {
    const docs = new Map<string, Posting>();
    const range = { start: [accountId, term], end: [accountId, term, KEY_END] };
    if (fileId !== undefined) {
      const posting = this.postings.get([accountId, term, fileId]);
      if (!posting) return { df: 0, docs };
      docs.set(fileId, posting);
      return { df: this.postings.getKeysCount(range), docs };
    }
    for (const { key, value } of this.postings.getRange(range)) docs.set((key as string[])[2]!, value);
    return { df: docs.size, docs };
  }
}
