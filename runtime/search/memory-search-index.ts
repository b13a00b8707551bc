import {
  analyzeDocument,
  DEFAULT_SEARCH_LIMITS,
  rankBm25,
  type AnalyzedDocument,
  type Posting,
  type PostingsSource,
  type RankedDocument,
  type SearchIndexLimits,
  type TermPostings,
} from './bm25.js';
import { parseQuery, type ParsedQuery } from './text-tokens.js';

const NO_POSTINGS: TermPostings = { df: 0, docs: new Map<string, Posting>() };

/**
 * A search index held in memory, for a small corpus built once and read many times (the public
 * docs): the same analysis, BM25 ranking and phrases as the files' index in the store, without
 * storage, accounts or removal.
 */
export class MemorySearchIndex {
  private readonly postings = new Map<string, TermPostings>();
  private readonly positions = new Map<string, Map<string, number[]>>();
  private readonly source: PostingsSource;

  constructor(private readonly limits: SearchIndexLimits = DEFAULT_SEARCH_LIMITS) {
    this.source = {
      stats: { docs: 0, tokens: 0 },
      postings: (term) => this.postings.get(term) ?? NO_POSTINGS,
      positions: (term, id) => this.positions.get(term)?.get(id) ?? [],
    };
  }

  /** Indexes a document under `id`, which must be new to this index. */
  add(id: string, text: string | AnalyzedDocument): void {
    const doc = typeof text === 'string' ? analyzeDocument(text, this.limits) : text;
    for (const [term, { tf, positions }] of doc.terms) {
      let postings = this.postings.get(term);
      if (!postings) this.postings.set(term, (postings = { df: 0, docs: new Map<string, Posting>() }));
      postings.docs.set(id, [tf, doc.length]);
      postings.df = postings.docs.size;
      let byDoc = this.positions.get(term);
      if (!byDoc) this.positions.set(term, (byDoc = new Map<string, number[]>()));
      byDoc.set(id, positions);
    }
    this.source.stats.docs += 1;
    this.source.stats.tokens += doc.length;
  }

  /** The documents matching `query`, best first (ties by id), at most `maxResults`. */
  search(query: string | ParsedQuery, options: { maxResults: number }): RankedDocument[] {
    const parsed = typeof query === 'string' ? parseQuery(query) : query;
    return rankBm25(this.source, parsed, {
      maxResults: options.maxResults,
      maxPhraseChecks: this.limits.maxPhraseChecks,
    });
  }
}
