import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TokenTally } from '../backends/openai-compatible/token-tally.js';
import { countTokens } from '../protocols/tokens.js';

const test = suite('token tally: a text counted in pieces equals the whole text counted');

const WORDS = ['alpha', 'β-gamma', '中文字', '😀😀', 'x1', ' ', '\n', 'don’t', '…', 'supercalifragilistic'];

test('short and long texts cut anywhere (inside words, between surrogates, past the counting threshold)', () => {
  let seed = 7;
  const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  for (const length of [0, 10, 300, 5000, 20_000]) {
    let text = '';
    while (text.length < length) text += WORDS[random(WORDS.length)]! + (random(3) ? ' ' : '');
    for (let round = 0; round < 3; round++) {
      const tally = new TokenTally();
      for (let at = 0; at < text.length;) {
        const next = Math.min(text.length, at + 1 + random(40));
        tally.add(text.slice(at, next));
        at = next;
      }
      assert.is(tally.total(), countTokens(text), `length ${text.length}, round ${round}`);
    }
  }
});

test.run();
