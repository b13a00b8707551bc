import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SearchIndex } from '../actors/files/search-index.js';
import { analyzeFields } from '../runtime/search/bm25.js';
import { MemorySearchIndex } from '../runtime/search/memory-search-index.js';
import { MemoryStore } from '../runtime/store/memory-store.js';

const test = suite('search engine: one BM25 ranks the files in the store and the docs in memory alike');

const CORPUS: [string, string][] = [
  ['d1', 'The harbour was quiet and the boats were still tonight.'],
  ['d2', 'Harbour lights, harbour walls, harbour fog over the water.'],
  ['d3', 'I moved to New York last spring; the harbour there is busy.'],
  ['d4', 'York, new and old, is a city in England.'],
  ['d5', 'Pizza in new york is folded; pizza elsewhere is not.'],
  ['d6', 'Le Café de Flore à Paris, 東京 and 京都.'],
  ['d7', 'la la land, la la la'],
];

const QUERIES = [
  'harbour',
  'harbour water',
  '"new york"',
  'pizza "new york"',
  '"york new"',
  'cafe paris',
  '"东京"',
  '"la la"',
  'nothing here',
];

async function bothIndexes(): Promise<{ memory: MemorySearchIndex; stored: SearchIndex; store: MemoryStore }> {
  const memory = new MemorySearchIndex();
  const store = new MemoryStore();
  const stored = new SearchIndex(store);
  for (const [id, text] of CORPUS) {
    memory.add(id, text);
    await store.transaction(() => stored.addInTransaction('acct', id, text));
  }
  return { memory, stored, store };
}

test('every query gives the same documents and scores from the memory index and the store index', async () => {
  const { memory, stored, store } = await bothIndexes();
  try {
    for (const query of QUERIES) {
      for (const maxResults of [100, 2]) {
        const fromStore = stored.search('acct', query, { maxFiles: maxResults });
        const fromMemory = memory.search(query, { maxResults });
        assert.equal(
          fromMemory,
          fromStore.map(({ fileId, score }) => ({ id: fileId, score })),
          `${query} (top ${maxResults})`,
        );
      }
    }
    assert.equal(
      memory
        .search('"new york"', { maxResults: 10 })
        .map((hit) => hit.id)
        .sort(),
      ['d3', 'd5'],
    );
  } finally {
    await store.close();
  }
});

test('a weighted field counts each of its words that many times, in tf and in length', () => {
  const doc = analyzeFields([
    { text: 'Idempotency keys', weight: 3 },
    { text: 'A key is reserved before any work.', weight: 1 },
  ]);
  assert.is(doc.length, 3 * 2 + 7);
  assert.is(doc.terms.get('idempotency')!.tf, 3);
  assert.is(doc.terms.get('key')!.tf, 1);
  assert.is(doc.terms.get('keys')!.tf, 3);
});

test('a heading word outranks the same word in body text, and no phrase spans heading and body', () => {
  const index = new MemorySearchIndex();
  const section = (heading: string, text: string) =>
    analyzeFields([
      { text: heading, weight: 3 },
      { text, weight: 1 },
    ]);
  index.add('s1', section('Streaming', 'Tokens arrive as server-sent events while the model writes.'));
  index.add('s2', section('Retries', 'A streaming request that fails is retried with backoff.'));
  index.add('s3', section('Billing', 'Holds are settled after the answer.'));
  assert.equal(
    index.search('streaming', { maxResults: 5 }).map((hit) => hit.id),
    ['s1', 's2'],
  );
  assert.equal(index.search('"streaming tokens"', { maxResults: 5 }), []);
  assert.equal(
    index.search('"server sent events"', { maxResults: 5 }).map((hit) => hit.id),
    ['s1'],
  );
});

test.run();
