import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { countTokens, countTokensByPattern } from '../protocols/tokens.js';

const test = suite('token count: the ASCII scan counts as the pattern does');

test('fixed texts: words by six characters, symbols one each, spaces nothing', () => {
  const cases: [string, number][] = [
    ['', 0],
    ['   \t\n', 0],
    ['hello', 1],
    ['abcdef', 1],
    ['abcdefg', 2],
    ['Say hello to the load test.', 7],
    ['a,b;c', 5],
    ['x\u0000y\u007f', 4],
    ['naïve café', countTokensByPattern('naïve café')],
    ['emoji 😀 here', countTokensByPattern('emoji 😀 here')],
  ];
  for (const [text, expected] of cases) assert.is(countTokens(text), expected, JSON.stringify(text));
});

test('seeded random texts, ASCII and not, agree with the pattern', () => {
  let seed = 28;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
  const alphabet = [...'abcXYZ019 \t\n\r\v\f.,;:!?-_()[]{}"\'\u0000\u001f\u007f', 'é', 'ß', '中', '😀', '\u00a0', '٣'];
  for (let round = 0; round < 2000; round++) {
    const ascii = round % 2 === 0;
    let text = '';
    const length = next() % 80;
    for (let i = 0; i < length; i++) {
      const pool = ascii ? alphabet.length - 6 : alphabet.length;
      text += alphabet[next() % pool];
    }
    assert.is(countTokens(text), countTokensByPattern(text), JSON.stringify(text));
  }
});

test.run();
