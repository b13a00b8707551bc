import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodePositions, encodePositions, SearchIndex } from '../actors/files/search-index.js';
import { DEFAULT_SEARCH_LIMITS, type SearchIndexLimits } from '../runtime/search/bm25.js';
import { snippets } from '../runtime/search/snippets.js';
import { MAX_TERM_LENGTH, parseQuery, tokenize, tokenTerms } from '../runtime/search/text-tokens.js';
import type { Store } from '../runtime/store/store.js';
import { LmdbStore } from '../runtime/store/lmdb-store.js';

const K1 = 1.2;
const B = 0.75;

/** BM25 of one term as the brief defines it, to check scores against. */
function expectedBm25(tf: number, df: number, length: number, docs: number, avgLength: number): number {
  const idf = Math.log(1 + (docs - df + 0.5) / (df + 0.5));
  return (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / avgLength));
}

interface Fixture {
  store: Store;
  index: SearchIndex;
  dir: string;
  add(accountId: string, fileId: string, text: string): Promise<void>;
  remove(accountId: string, fileId: string): Promise<void>;
  ids(accountId: string, query: string, options?: { fileId?: string; maxFiles?: number }): string[];
  rows(table: string): unknown[];
  close(): Promise<void>;
}

function openFixture(limits?: SearchIndexLimits): Fixture {
  const dir = mkdtempSync(join(tmpdir(), 'svc-search-'));
  const store = LmdbStore.open(dir);
  const index = new SearchIndex(store, limits);
  return {
    store,
    index,
    dir,
    add: (accountId, fileId, text) => store.transaction(() => index.addInTransaction(accountId, fileId, text)),
    remove: (accountId, fileId) => store.transaction(() => index.removeInTransaction(accountId, fileId)),
    ids: (accountId, query, options = {}) =>
      index.search(accountId, query, { maxFiles: 100, ...options }).map((r) => r.fileId),
    rows: (table) => [...store.table(table).getRange({})].map((entry) => entry.key),
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const tokens = suite('file search: tokenizer and query parser');

tokens('terms ignore case and accents in both directions', () => {
  assert.equal(tokenTerms('Café CAFE cafe'), ['cafe', 'cafe', 'cafe']);
  assert.equal(tokenTerms('ÉCOLE école Ecole e\u0301cole'), ['ecole', 'ecole', 'ecole', 'ecole']);
  assert.equal(tokenTerms('Straße STRASSE Æon Œuvre Søren Łódź naïve ＡＢＣ ﬁne'), [
    'strasse',
    'strasse',
    'aeon',
    'oeuvre',
    'soren',
    'lodz',
    'naive',
    'abc',
    'fine',
  ]);
});

tokens('each Han, kana and Hangul character is its own token, beside Latin words', () => {
  assert.equal(tokenTerms('東京タワーへ'), ['東', '京', 'タ', 'ワ', 'ー', 'へ']);
  assert.equal(tokenTerms('iPhone用の説明'), ['iphone', '用', 'の', '説', '明']);
  assert.equal(tokenTerms('한국어'), ['한', '국', '어']);
});

tokens('apostrophes, underscores and punctuation split words', () => {
  assert.equal(tokenTerms("l'école don't user_id 3.14 e-mail"), [
    'l',
    'ecole',
    'don',
    't',
    'user',
    'id',
    '3',
    '14',
    'e',
    'mail',
  ]);
  assert.equal(tokenTerms('  ...  !!! 😀 —  '), []);
});

tokens('offsets point into the original text, past accents, emoji and astral characters', () => {
  const text = '😀 Café\u00a0«e\u0301cole» 𠀋字 ÉTÉ 👍🏽ok';
  const found = tokenize(text);
  assert.equal(
    found.map((t) => text.slice(t.start, t.end)),
    ['Café', 'e\u0301cole', '𠀋', '字', 'ÉTÉ', 'ok'],
  );
  assert.equal(
    found.map((t) => t.term),
    ['cafe', 'ecole', '𠀋', '字', 'ete', 'ok'],
  );
  for (const token of found) assert.equal(tokenTerms(text.slice(token.start, token.end)), [token.term]);
});

tokens('very long words are cut to the term cap, never inside a surrogate pair', () => {
  assert.is(tokenTerms('x'.repeat(500))[0], 'x'.repeat(MAX_TERM_LENGTH));
  const astral = 'a'.repeat(MAX_TERM_LENGTH - 1) + '𝐀𝐀';
  const [term] = tokenTerms(astral);
  assert.ok(term!.length <= MAX_TERM_LENGTH);
  assert.not.ok(/[\ud800-\udbff]$/.test(term!));
});

tokens('quoted segments are phrases, the rest free terms, one-word phrases required once', () => {
  assert.equal(parseQuery('Apple "New  York" banana'), { terms: ['apple', 'banana'], phrases: [['new', 'york']] });
  assert.equal(parseQuery('cafe "cafe" pie'), { terms: ['pie'], phrases: [['cafe']] });
  assert.equal(parseQuery('one "two three'), { terms: ['one'], phrases: [['two', 'three']] });
  assert.equal(parseQuery('“smart quotes” plain plain'), { terms: ['plain'], phrases: [['smart', 'quotes']] });
  assert.equal(parseQuery('"東京"'), { terms: [], phrases: [['東', '京']] });
  assert.equal(parseQuery('  "" "!!" ?? '), { terms: [], phrases: [] });
});

tokens('token positions survive the varint gap encoding', () => {
  const positions = [0, 1, 2, 127, 128, 300, 16_384, 2_000_000, 2_000_001];
  assert.equal(decodePositions(encodePositions(positions)), positions);
  assert.equal(decodePositions(encodePositions([])), []);
});

tokens.run();

const ranking = suite('file search: BM25 ranking');
let rank: Fixture;
ranking.before(() => {
  rank = openFixture();
});
ranking.after(() => rank.close());

ranking('a file with the term more often ranks higher', async () => {
  await rank.add('acct', 'f-once', 'the harbour was quiet and the boats were still tonight');
  await rank.add('acct', 'f-thrice', 'harbour lights, harbour walls, harbour fog over the water');
  assert.equal(rank.ids('acct', 'harbour'), ['f-thrice', 'f-once']);
});

ranking('of two files with the term once, the shorter ranks higher', async () => {
  await rank.add('acct', 'f-short', 'lighthouse keeper');
  await rank.add('acct', 'f-long', 'the old lighthouse stood on the rocks beyond the bay for a hundred years and more');
  assert.equal(rank.ids('acct', 'lighthouse'), ['f-short', 'f-long']);
});

ranking('a rare term outweighs a common one', async () => {
  await rank.add('acct', 'f-common', 'the the the the the water water');
  await rank.add('acct', 'f-rare', 'the zeppelin water');
  assert.is(rank.ids('acct', 'the zeppelin')[0], 'f-rare');
});

ranking('scores follow the BM25 formula with account-wide N and average length', () => {
  const stats = rank.index.accountStats('acct');
  const avgLength = stats.tokens / stats.docs;
  const [top] = rank.index.search('acct', 'lighthouse', { maxFiles: 1 });
  assert.is(top!.fileId, 'f-short');
  assert.ok(Math.abs(top!.score - expectedBm25(1, 2, 2, stats.docs, avgLength)) < 1e-12);
});

ranking('free terms are ORed and a file with more of them ranks first', async () => {
  await rank.add('acct', 'f-both', 'quince and medlar');
  await rank.add('acct', 'f-quince', 'quince jelly');
  await rank.add('acct', 'f-medlar', 'medlar tree');
  const found = rank.ids('acct', 'quince medlar');
  assert.is(found[0], 'f-both');
  assert.equal([...found].sort(), ['f-both', 'f-medlar', 'f-quince']);
});

ranking('equal scores are ordered by fileId and maxFiles bounds the list', async () => {
  for (const id of ['t-c', 't-a', 't-b']) await rank.add('acct', id, 'identical walnut text');
  assert.equal(rank.ids('acct', 'walnut'), ['t-a', 't-b', 't-c']);
  assert.equal(rank.ids('acct', 'walnut', { maxFiles: 2 }), ['t-a', 't-b']);
  assert.equal(rank.ids('acct', 'walnut', { maxFiles: 0 }), []);
});

ranking('a term never matches a longer term it prefixes', async () => {
  await rank.add('acct', 'f-cats', 'cats everywhere');
  await rank.add('acct', 'f-cat', 'one cat');
  assert.equal(rank.ids('acct', 'cat'), ['f-cat']);
});

ranking('empty and garbage queries find nothing', () => {
  for (const query of ['', '   ', '""', '"', '!!! --- ???', '😀😀', '“ ”'])
    assert.equal(rank.ids('acct', query), [], query);
  assert.equal(rank.ids('acct', 'nonexistentword'), []);
  assert.equal(rank.ids('nobody', 'harbour'), []);
});

ranking.run();

const phrases = suite('file search: phrases are required and consecutive');
let phr: Fixture;
phrases.before(async () => {
  phr = openFixture();
  await phr.add('acct', 'f-ny', 'I moved to New York last spring.');
  await phr.add('acct', 'f-yn', 'York, new and old, is a city in England.');
  await phr.add('acct', 'f-apart', 'New ideas came from York.');
  await phr.add('acct', 'f-pizza', 'Pizza in new york is folded; pizza elsewhere is not.');
  await phr.add('acct', 'f-cjk', '我住在东京，很喜欢东京塔。');
  await phr.add('acct', 'f-cjk2', '京东是一家公司。');
  await phr.add('acct', 'f-accent', 'Le Café de Flore à Paris.');
  await phr.add('acct', 'f-repeat', 'la la land, la la la');
});
phrases.after(() => phr.close());

phrases('a phrase matches only consecutive words, in order', () => {
  assert.equal(phr.ids('acct', '"new york"').sort(), ['f-ny', 'f-pizza']);
});

phrases('a phrase is required while free terms only add to the score', () => {
  assert.equal(phr.ids('acct', 'pizza "new york"'), ['f-pizza', 'f-ny']);
  assert.equal(phr.ids('acct', 'england "new york"').sort(), ['f-ny', 'f-pizza']);
  assert.equal(phr.ids('acct', 'york "moved to" "folded"'), []);
});

phrases('a one-word phrase is a required term', () => {
  assert.equal(phr.ids('acct', 'spring "pizza"'), ['f-pizza']);
});

phrases('a quoted run of CJK characters matches those characters consecutively', () => {
  assert.equal(phr.ids('acct', '"东京"'), ['f-cjk']);
  assert.equal(phr.ids('acct', '"京东"'), ['f-cjk2']);
  assert.equal(phr.ids('acct', '东京').sort(), ['f-cjk', 'f-cjk2']);
});

phrases('phrases ignore accents and case', () => {
  assert.equal(phr.ids('acct', '"CAFE DE FLORE"'), ['f-accent']);
});

phrases('a phrase repeating a word counts overlapping occurrences', () => {
  const stats = phr.index.accountStats('acct');
  const [hit] = phr.index.search('acct', '"la la"', { maxFiles: 5 });
  assert.is(hit!.fileId, 'f-repeat');
  // "la la land, la la la": starts at 0, 3 and 4.
  assert.ok(Math.abs(hit!.score - expectedBm25(3, 1, 6, stats.docs, stats.tokens / stats.docs)) < 1e-12);
});

phrases.run();

const reference = suite('file search: ranking equals a brute-force BM25 over the texts');

/** BM25 computed straight from the token lists: free terms first, then phrases, as the index sums them. */
function bruteForce(texts: Map<string, string>, query: string): { fileId: string; score: number }[] {
  const parsed = parseQuery(query);
  const docs = [...texts].map(([fileId, text]) => ({ fileId, terms: tokenTerms(text) }));
  const avgLength = Math.max(1, docs.reduce((sum, doc) => sum + doc.terms.length, 0) / docs.length);
  const df = (term: string) => docs.filter((doc) => doc.terms.includes(term)).length;
  const weight = (count: number) => Math.log(1 + (docs.length - count + 0.5) / (count + 0.5));
  const score = (tf: number, w: number, length: number) =>
    (w * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / avgLength));
  const results: { fileId: string; score: number }[] = [];
  for (const doc of docs) {
    let total = 0;
    let matched = parsed.phrases.length > 0;
    for (const term of parsed.terms) {
      const tf = doc.terms.filter((t) => t === term).length;
      if (tf > 0) {
        total += score(tf, weight(df(term)), doc.terms.length);
        matched = true;
      }
    }
    for (const phrase of parsed.phrases) {
      const occurrences = doc.terms.filter((_, at) =>
        phrase.every((term, offset) => doc.terms[at + offset] === term),
      ).length;
      if (occurrences === 0) matched = false;
      total += score(occurrences, weight(Math.min(...phrase.map(df))), doc.terms.length);
    }
    if (matched) results.push({ fileId: doc.fileId, score: total });
  }
  return results.sort((a, b) => b.score - a.score || (a.fileId < b.fileId ? -1 : 1));
}

reference('every kind of query ranks exactly as the brute force, whole or cut to the top 5', async () => {
  const fx = openFixture();
  try {
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
    const vocabulary = ['sun', 'moon', 'star', 'sky', 'sea', 'rain', 'wind', 'snow', 'fire', 'stone', 'tree', 'Été'];
    const texts = new Map<string, string>();
    for (let i = 0; i < 60; i++) {
      const length = 3 + Math.floor(random() * 60);
      // Skewed towards the first words, so phrases of common words have many candidates.
      const words = Array.from({ length }, () => vocabulary[Math.floor(random() ** 2 * vocabulary.length)]!);
      texts.set(`doc-${String(i).padStart(2, '0')}`, words.join(random() < 0.5 ? ' ' : ', '));
    }
    for (const [fileId, text] of texts) await fx.add('acct', fileId, text);
    const queries = [
      'sun',
      'ete',
      'stone tree',
      'sun moon star',
      '"sun sun"',
      '"sun moon"',
      '"moon sun" sky',
      '"sun moon" "star sky"',
      '"sea" rain',
      '"sun moon sun" wind',
      '"tree stone fire"',
      'nothing',
    ];
    for (const query of queries) {
      const expected = bruteForce(texts, query);
      assert.equal(fx.index.search('acct', query, { maxFiles: 1000 }), expected, query);
      assert.equal(fx.index.search('acct', query, { maxFiles: 5 }), expected.slice(0, 5), query);
      const one = expected[0];
      if (one) assert.equal(fx.index.search('acct', query, { fileId: one.fileId, maxFiles: 5 }), [one], query);
    }
  } finally {
    await fx.close();
  }
});

reference.run();

const scope = suite('file search: fileId filter and account isolation');
let sc: Fixture;
scope.before(async () => {
  sc = openFixture();
  await sc.add('acct_1', 'file-a', 'orchard apples and pears');
  await sc.add('acct_1', 'file-b', 'apples apples apples');
  await sc.add('acct_1', 'file-c', 'nothing relevant here');
  await sc.add('acct_10', 'file-a', 'secret apples of another account');
});
scope.after(() => sc.close());

scope('with fileId only that file is scored, with the account-wide statistics', () => {
  const all = sc.index.search('acct_1', 'apples', { maxFiles: 10 });
  const one = sc.index.search('acct_1', 'apples', { fileId: 'file-a', maxFiles: 10 });
  assert.equal(
    one,
    all.filter((r) => r.fileId === 'file-a'),
  );
  assert.equal(sc.index.search('acct_1', 'apples', { fileId: 'file-c', maxFiles: 10 }), []);
  assert.equal(sc.index.search('acct_1', '"orchard apples"', { fileId: 'file-a', maxFiles: 10 }).length, 1);
  assert.equal(sc.index.search('acct_1', '"orchard apples"', { fileId: 'file-b', maxFiles: 10 }), []);
});

scope('an account never sees another account’s files, even under the same fileId', () => {
  assert.equal(sc.ids('acct_1', 'secret'), []);
  assert.equal(sc.ids('acct_1', 'secret', { fileId: 'file-a' }), []);
  assert.equal(sc.ids('acct_10', 'orchard'), []);
  assert.equal(sc.ids('acct_10', 'apples'), ['file-a']);
  assert.equal(sc.index.accountStats('acct_10'), { docs: 1, tokens: 5 });
  assert.equal(sc.index.accountStats('acct_1').docs, 3);
});

scope('removing a file from one account leaves the other account’s copy', async () => {
  await sc.remove('acct_1', 'file-a');
  assert.equal(sc.ids('acct_10', 'apples'), ['file-a']);
  assert.equal(sc.ids('acct_1', 'apples'), ['file-b']);
});

scope.run();

const lifecycle = suite('file search: add, replace, remove');
let life: Fixture;
lifecycle.before(() => {
  life = openFixture();
});
lifecycle.after(() => life.close());

lifecycle('stats count documents and tokens through adds and removes', async () => {
  await life.add('acct', 'f1', 'one two three');
  await life.add('acct', 'f2', 'four five');
  assert.equal(life.index.accountStats('acct'), { docs: 2, tokens: 5 });
  await life.remove('acct', 'f1');
  assert.equal(life.index.accountStats('acct'), { docs: 1, tokens: 2 });
  await life.remove('acct', 'missing');
  assert.equal(life.index.accountStats('acct'), { docs: 1, tokens: 2 });
});

lifecycle('re-adding a file replaces its terms and its share of the stats', async () => {
  await life.add('acct', 'f2', 'entirely different words now here');
  assert.equal(life.ids('acct', 'four'), []);
  assert.equal(life.ids('acct', 'different'), ['f2']);
  assert.equal(life.index.accountStats('acct'), { docs: 1, tokens: 5 });
});

lifecycle('removing every file leaves no postings, positions, documents or stats behind', async () => {
  await life.add('acct', 'f3', 'Some "quoted" text with Café and 東京 in it');
  await life.add('other', 'f3', 'another account keeps its rows');
  await life.remove('acct', 'f2');
  await life.remove('acct', 'f3');
  assert.equal(life.ids('acct', 'cafe different text'), []);
  for (const table of ['search_postings', 'search_positions', 'search_docs']) {
    const rows = life.rows(table) as string[][];
    assert.ok(rows.length > 0, table);
    assert.ok(
      rows.every((key) => key[0] === 'other'),
      table,
    );
  }
  assert.equal(life.rows('search_stats'), ['other']);
  await life.remove('other', 'f3');
  for (const table of ['search_postings', 'search_positions', 'search_docs', 'search_stats'])
    assert.equal(life.rows(table), [], table);
});

lifecycle('an empty text is indexed as an empty document and found by nothing', async () => {
  await life.add('acct', 'empty', '  …  ');
  assert.equal(life.index.accountStats('acct'), { docs: 1, tokens: 0 });
  assert.equal(life.ids('acct', 'anything'), []);
  await life.remove('acct', 'empty');
  assert.equal(life.rows('search_docs'), []);
});

lifecycle('analysing outside the transaction indexes the same as passing text', async () => {
  const doc = life.index.analyze('prepared before the write lock');
  await life.store.transaction(() => life.index.addInTransaction('acct', 'pre', doc));
  assert.equal(life.ids('acct', '"write lock"'), ['pre']);
  await life.remove('acct', 'pre');
});

lifecycle.run();

const caps = suite('file search: indexing caps');

caps('tokens past the per-document cap are not indexed and not counted', async () => {
  const fx = openFixture({ ...DEFAULT_SEARCH_LIMITS, maxTokensPerDocument: 3 });
  try {
    await fx.add('acct', 'f', 'alpha beta gamma delta epsilon');
    assert.equal(fx.index.accountStats('acct'), { docs: 1, tokens: 3 });
    assert.equal(fx.ids('acct', 'gamma'), ['f']);
    assert.equal(fx.ids('acct', 'delta'), []);
  } finally {
    await fx.close();
  }
});

caps('positions past the per-term cap are dropped: later phrases are missed, tf stays exact', async () => {
  const fx = openFixture({ ...DEFAULT_SEARCH_LIMITS, maxPositionsPerTerm: 2 });
  try {
    await fx.add('acct', 'f', 'x a x b x c');
    assert.equal(fx.ids('acct', '"x a"'), ['f']);
    assert.equal(fx.ids('acct', '"x c"'), []);
    const stats = fx.index.accountStats('acct');
    const [hit] = fx.index.search('acct', 'x', { maxFiles: 1 });
    assert.ok(Math.abs(hit!.score - expectedBm25(3, 1, 6, stats.docs, stats.tokens / stats.docs)) < 1e-12);
  } finally {
    await fx.close();
  }
});

caps('a query reads positions of at most maxPhraseChecks files; one-word phrases need none', async () => {
  const fx = openFixture({ ...DEFAULT_SEARCH_LIMITS, maxPhraseChecks: 2 });
  try {
    for (let i = 0; i < 5; i++) await fx.add('acct', `f${i}`, `the red fox ${'and more '.repeat(i)}`);
    assert.equal(fx.ids('acct', '"red fox"'), ['f0', 'f1']);
    assert.is(fx.ids('acct', '"fox"').length, 5);
  } finally {
    await fx.close();
  }
});

caps.run();

const snips = suite('file search: snippets');
const filler = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore. ';

snips('a snippet holds the match with context and its offsets point at it', () => {
  const text = filler.repeat(4) + 'The Café near the river serves coffee. ' + filler.repeat(4);
  const [snippet, ...rest] = snippets(text, parseQuery('cafe'), { max: 3, context: 40 });
  assert.equal(rest, []);
  assert.ok(snippet!.text.startsWith('…') && snippet!.text.endsWith('…'));
  assert.equal(
    snippet!.matches.map((m) => snippet!.text.slice(m.start, m.end)),
    ['Café'],
  );
  assert.ok(snippet!.text.includes('near the river'));
  assert.is(text.slice(snippet!.start, snippet!.end), snippet!.text.slice(1, -1));
  assert.ok(snippet!.text.length <= 1 + 40 + 4 + 40 + 1);
});

snips('windows are cut at word boundaries and whitespace runs collapse with offsets kept right', () => {
  const text =
    'alpha beta gamma delta epsilon\n\n\t  needle   in\n  the   haystack zeta eta theta iota kappa lambda mu';
  // 28 characters each side would cut "beta" and "lambda" mid-word.
  const [snippet] = snippets(text, parseQuery('needle haystack'), { max: 1, context: 28 });
  assert.is(snippet!.text, '…gamma delta epsilon needle in the haystack zeta eta theta iota kappa…');
  assert.equal(
    snippet!.matches.map((m) => snippet!.text.slice(m.start, m.end)),
    ['needle', 'haystack'],
  );
  assert.is(snippet!.start, text.indexOf('gamma'));
  assert.is(snippet!.end, text.indexOf('kappa') + 'kappa'.length);
});

snips('no ellipsis where the window reaches the ends of the text', () => {
  const [snippet] = snippets('  short text with a needle  ', parseQuery('needle'), { max: 1, context: 80 });
  assert.is(snippet!.text, 'short text with a needle');
  assert.equal(snippet!.matches, [{ start: 18, end: 24 }]);
});

snips('phrase matches are marked whole and the best window comes first', () => {
  const text = `${filler}Only new here. ${filler}${filler}Then New   York arrived. ${filler}And york alone. ${filler}`;
  const found = snippets(text, parseQuery('"new york" york new'), { max: 3, context: 20 });
  assert.ok(found.length === 3);
  assert.equal(
    found[0]!.matches.map((m) => found[0]!.text.slice(m.start, m.end)),
    ['New York'],
  );
  for (let i = 1; i < found.length; i++)
    assert.ok(found[i - 1]!.end <= found[i]!.start || found[i]!.end <= found[i - 1]!.start);
});

snips('max bounds the number of windows, which never overlap', () => {
  const text = Array.from({ length: 20 }, () => `${filler}apple ${filler}`).join('');
  const found = snippets(text, parseQuery('apple'), { max: 5, context: 30 });
  assert.is(found.length, 5);
  const spans = found.map((s) => [s.start, s.end] as const).sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < spans.length; i++) assert.ok(spans[i - 1]![1] <= spans[i]![0]);
  assert.equal(snippets(text, parseQuery('apple'), { max: 0 }), []);
});

snips('CJK snippets and astral text keep offsets on the matched characters', () => {
  const text = '😀😀 我住在东京。东京塔很高。𠀋𠀋 ';
  const [snippet] = snippets(text, parseQuery('"东京塔"'), { max: 1, context: 3 });
  assert.equal(
    snippet!.matches.map((m) => snippet!.text.slice(m.start, m.end)),
    ['东京塔'],
  );
  assert.not.ok(/[\ud800-\udbff]$|^[\udc00-\udfff]/.test(snippet!.text.replace(/^…|…$/g, '')));
});

snips('nothing found or nothing asked gives no snippets', () => {
  assert.equal(snippets(filler, parseQuery('zebra'), { max: 3 }), []);
  assert.equal(snippets(filler, parseQuery('  !! '), { max: 3 }), []);
});

snips.run();
