// Keyword search over a synthetic corpus: index time, then queries per second and latency of a
// mix of single-term, multi-term and phrase queries, each with snippets cut for its top 20 files
// (as the files API does; texts come from memory here, so disk reads are not counted).
//   npx tsx bench/files/search-bench.ts [files] [queries]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SearchIndex } from '../../actors/files/search-index.js';
import { snippets } from '../../runtime/search/snippets.js';
import { parseQuery, tokenTerms } from '../../runtime/search/text-tokens.js';
import { LmdbStore } from '../../runtime/store/lmdb-store.js';

/** What one run measured. */
export interface SearchBenchResult {
  files: number;
  indexMs: number;
  qps: number;
  p50Ms: number;
  p99Ms: number;
  /** Baseline: the same queries answered by scanning every text for matches (no index). */
  scan: { queries: number; qps: number; p50Ms: number };
}

const ACCOUNT = 'acct_bench';
const VOCABULARY = 4000;
const FILES_PER_TRANSACTION = 50;
const TOP_FILES = 20;
/** The scan baseline is slow by nature: it stops after this many queries or this much time. */
const SCAN_MAX_QUERIES = 200;
const SCAN_MAX_MS = 10_000;

/** mulberry32: a small seeded generator, so every run indexes the same corpus. */
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Pronounceable words, a few with accents, and a Zipf (s = 1) sampler over them. */
function createVocabulary(random: () => number): { words: string[]; pick: () => string } {
  const syllables = [
    'ka',
    'lo',
    'mi',
    'ne',
    'ru',
    'sa',
    'to',
    'vi',
    'del',
    'mar',
    'qui',
    'ston',
    'bre',
    'fal',
    'gor',
    'zé',
    'cö',
    'ha',
  ];
  const words = new Set<string>();
  while (words.size < VOCABULARY) {
    const count = 1 + Math.floor(random() * 4);
    let word = '';
    for (let i = 0; i < count; i++) word += syllables[Math.floor(random() * syllables.length)];
    words.add(word);
  }
  const list = [...words];
  const cumulative: number[] = [];
  let total = 0;
  for (let rank = 1; rank <= list.length; rank++) cumulative.push((total += 1 / rank));
  const pick = () => {
    const target = random() * total;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle]! < target) low = middle + 1;
      else high = middle;
    }
    return list[low]!;
  };
  return { words: list, pick };
}

function createDocument(random: () => number, pick: () => string): string {
  const length = 300 + Math.floor(random() * 1700);
  const parts: string[] = [];
  for (let i = 0; i < length; i++) {
    let word = pick();
    if (random() < 0.05) word = word[0]!.toUpperCase() + word.slice(1);
    parts.push(word, random() < 0.08 ? (random() < 0.3 ? '.\n\n' : ', ') : ' ');
  }
  return parts.join('');
}

/** Single terms across frequency ranks, two- and three-term ORs, and phrases taken from the corpus. */
function createQueries(
  count: number,
  random: () => number,
  words: readonly string[],
  texts: readonly string[],
): string[] {
  const queries: string[] = [];
  const word = () => words[Math.floor(random() ** 3 * words.length)]!;
  for (let i = 0; i < count; i++) {
    const kind = i % 10;
    if (kind < 4) queries.push(word());
    else if (kind < 7) queries.push(Array.from({ length: 2 + (kind % 2) }, word).join(' '));
    else {
      const text = texts[Math.floor(random() * texts.length)]!;
      const at = Math.floor(random() * (text.length - 60));
      // Skip the first, possibly cut, word; the next two are consecutive tokens of the file.
      const phrase = tokenTerms(text.slice(at, at + 60))
        .slice(1, 3)
        .join(' ');
      queries.push(kind === 9 ? `"${phrase}" ${word()}` : `"${phrase}"`);
    }
  }
  return queries;
}

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? 0;
}

/** Answers queries by looking for matches in every text, keeping the first TOP_FILES with a snippet. */
function scanBaseline(queries: readonly string[], texts: readonly string[]): SearchBenchResult['scan'] {
  const latencies: number[] = [];
  const runStart = performance.now();
  for (const query of queries.slice(0, SCAN_MAX_QUERIES)) {
    const started = performance.now();
    const parsed = parseQuery(query);
    let found = 0;
    for (const text of texts) {
      if (snippets(text, parsed, { max: 3, context: 80 }).length > 0 && ++found >= TOP_FILES) break;
    }
    latencies.push(performance.now() - started);
    if (performance.now() - runStart > SCAN_MAX_MS) break;
  }
  const runMs = performance.now() - runStart;
  latencies.sort((a, b) => a - b);
  return { queries: latencies.length, qps: (latencies.length / runMs) * 1000, p50Ms: percentile(latencies, 0.5) };
}

/** Indexes `files` synthetic documents for one account in a temporary store, then times `queries` searches. */
export async function benchSearch(options: { files: number; queries: number }): Promise<SearchBenchResult> {
  const random = createRandom(42);
  const { words, pick } = createVocabulary(random);
  const texts = Array.from({ length: options.files }, () => createDocument(random, pick));
  const dir = mkdtempSync(join(tmpdir(), 'svc-search-bench-'));
  const store = LmdbStore.open(dir);
  try {
    const index = new SearchIndex(store);
    const indexStart = performance.now();
    const pending: Promise<void>[] = [];
    for (let from = 0; from < texts.length; from += FILES_PER_TRANSACTION) {
      const batch = texts
        .slice(from, from + FILES_PER_TRANSACTION)
        .map((text, offset) => ({ fileId: `file-${from + offset}`, doc: index.analyze(text) }));
      pending.push(
        store.transaction(() => batch.forEach(({ fileId, doc }) => index.addInTransaction(ACCOUNT, fileId, doc))),
      );
      // Keep a few transactions in flight: batched commits without holding the whole corpus analysed.
      if (pending.length >= 4) await pending.shift();
    }
    await Promise.all(pending);
    const indexMs = performance.now() - indexStart;

    const queries = createQueries(options.queries, random, words, texts);
    const latencies: number[] = [];
    const runStart = performance.now();
    for (const query of queries) {
      const started = performance.now();
      const parsed = parseQuery(query);
      for (const { fileId } of index.search(ACCOUNT, parsed, { maxFiles: TOP_FILES })) {
        snippets(texts[Number(fileId.slice('file-'.length))]!, parsed, { max: 3, context: 80 });
      }
      latencies.push(performance.now() - started);
    }
    const runMs = performance.now() - runStart;
    latencies.sort((a, b) => a - b);
    return {
      files: options.files,
      indexMs,
      qps: (queries.length / runMs) * 1000,
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
      scan: scanBaseline(queries, texts),
    };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const files = Number(process.argv[2] ?? 10_000);
  const queries = Number(process.argv[3] ?? 1_000);
  const result = await benchSearch({ files, queries });
  console.log(
    `search: ${result.files} files indexed in ${(result.indexMs / 1000).toFixed(1)} s; ` +
      `${result.qps.toFixed(0)} queries/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms (top ${TOP_FILES} with snippets); ` +
      `scanning every text instead: ${result.scan.qps.toFixed(1)} queries/s, p50 ${result.scan.p50Ms.toFixed(1)} ms`,
  );
}
