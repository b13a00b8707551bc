import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SseDecoder, type SseEvent } from '../protocols/sse-decoder.js';

const test = suite('sse decoder: events survive any chunking');

// Every line ending, comments, multi-line data, ids, named events, fields without a colon or a
// space, and characters of 2, 3 and 4 UTF-8 bytes, behind a byte order mark.
const SAMPLE =
  '\uFEFF: keep-alive comment\n' +
  'data: {"text":"héllo"}\n\n' +
  'event: update\r\nid: 7\r\ndata: first line\r\ndata: second 漢字 line\r\n\r\n' +
  'data:no space 🚀\r\rretry: 1000\rdata\r\r' +
  ':another comment\n' +
  'id: 8\nunknown: field\ndata:  two leading spaces\n\n' +
  'event: ignored-without-data\n\n' +
  'data: [DONE]\n\n' +
  'data: unterminated at the end';

const EXPECTED: SseEvent[] = [
  { data: '{"text":"héllo"}' },
  { event: 'update', id: '7', data: 'first line\nsecond 漢字 line' },
  { id: '7', data: 'no space 🚀' },
  { id: '7', data: '' },
  { id: '8', data: ' two leading spaces' },
  { id: '8', data: '[DONE]' },
];

function decode(chunks: (Uint8Array | string)[]): SseEvent[] {
  const events: SseEvent[] = [];
  const decoder = new SseDecoder((event) => events.push(event));
  for (const chunk of chunks) decoder.push(chunk);
  decoder.end();
  return events;
}

const bytes = Buffer.from(SAMPLE, 'utf8');

test('the whole stream in one chunk gives the expected events', () => {
  assert.equal(decode([bytes]), EXPECTED);
  assert.equal(decode([SAMPLE]), EXPECTED);
});

test('a split at every byte position gives the same events', () => {
  for (let at = 0; at <= bytes.length; at++) {
    assert.equal(decode([bytes.subarray(0, at), bytes.subarray(at)]), EXPECTED, `split at byte ${at}`);
  }
});

test('two splits at every pair of positions give the same events', () => {
  for (let a = 0; a <= bytes.length; a += 3) {
    for (let b = a; b <= bytes.length; b += 5) {
      assert.equal(
        decode([bytes.subarray(0, a), bytes.subarray(a, b), bytes.subarray(b)]),
        EXPECTED,
        `split at ${a} and ${b}`,
      );
    }
  }
});

test('one byte at a time gives the same events', () => {
  assert.equal(decode([...bytes].map((byte) => Uint8Array.of(byte))), EXPECTED);
});

test('string chunks split at every character (a CR and its LF apart) give the same events', () => {
  for (let at = 0; at <= SAMPLE.length; at++) {
    assert.equal(decode([SAMPLE.slice(0, at), SAMPLE.slice(at)]), EXPECTED, `split at char ${at}`);
  }
});

test('a CR ending one chunk and an LF opening the next make one line break, not two', () => {
  assert.equal(decode(['data: a\r', '\ndata: b\r', '\n\r', '\n']), [{ data: 'a\nb' }]);
});

test('an event is pushed as soon as its blank line arrives, before the stream ends', () => {
  const events: SseEvent[] = [];
  const decoder = new SseDecoder((event) => events.push(event));
  decoder.push('data: one\n');
  assert.equal(events, []);
  decoder.push('\ndata: tw');
  assert.equal(events, [{ data: 'one' }]);
});

test('an error thrown by the sink leaves push', () => {
  const decoder = new SseDecoder(() => {
    throw new Error('stop');
  });
  assert.throws(() => decoder.push('data: x\n\n'), /stop/);
});

test.run();
