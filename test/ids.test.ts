import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newId, randomBase62, timeOrderedId } from '../runtime/ids.js';

const test = suite('ids: random base62 identifiers');

test('an id is its prefix, an underscore and 20 base62 characters; ten thousand are distinct', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 10_000; i++) {
    const id = newId('le');
    assert.match(id, /^le_[0-9A-Za-z]{20}$/);
    seen.add(id);
  }
  assert.is(seen.size, 10_000);
});

test('every base62 character turns up, and lengths past the scratch buffer are served whole', () => {
  const used = new Set(randomBase62(20_000));
  assert.is(used.size, 62);
  assert.is(randomBase62(100).length, 100);
  assert.is(randomBase62(0), '');
});

test('a time-ordered id sorts by its time', () => {
  const early = timeOrderedId('resp', 1_000);
  const late = timeOrderedId('resp', 2_000);
  assert.ok(early < late);
  assert.match(late, /^resp_0000000007d0[0-9A-Za-z]{20}$/);
});

test.run();
