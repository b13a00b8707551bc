import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { UpstreamChunkTemplate } from '../backends/openai-compatible/upstream-chunk-template.js';
import { plainChunk } from '../backends/openai-compatible/upstream-plain-shapes.js';

const test = suite('upstream chunk template: a chunk read through it equals the chunk parsed');

const chunk = (delta: object, extra: object = {}) =>
  JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1764300000,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: null }],
    ...extra,
  });

/** Reads `datas` as the upstream call does: the template when it fits, else a parse (learning from plain chunks). */
function readAll(datas: string[]): { chunks: unknown[]; matched: number } {
  const template = new UpstreamChunkTemplate();
  const chunks: unknown[] = [];
  let matched = 0;
  for (const data of datas) {
    const known = template.match(data);
    if (known) {
      matched++;
      chunks.push(structuredClone(known));
      continue;
    }
    const plain = plainChunk(JSON.parse(data));
    if (plain) template.learn(data, plain);
    chunks.push(plain ?? JSON.parse(data));
  }
  return { chunks, matched };
}

const TEXTS = [
  'Hello',
  ' wor"ld',
  'a\\b',
  'line\nbreak',
  'tab\t',
  'é ü 中文',
  '😀 emoji',
  '',
  '"content":"x"',
  '\u2028',
  'x',
];

test('an OpenAI-shaped stream: role chunk, text chunks of every kind, finish, usage', () => {
  const datas = [
    chunk({ role: 'assistant', content: '' }),
    ...TEXTS.map((text) => chunk({ content: text })),
    JSON.stringify({ id: 'chatcmpl-1', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
    JSON.stringify({ id: 'chatcmpl-1', choices: [], usage: { prompt_tokens: 3, completion_tokens: 4 } }),
  ];
  const { chunks, matched } = readAll(datas);
  assert.equal(
    chunks,
    datas.map((data) => JSON.parse(data)),
  );
  assert.ok(matched >= TEXTS.length - 1, `read ${matched} through the template`);
});

test('escaped text on the wire (\\u escapes, escaped slashes) is decoded as JSON would', () => {
  const datas = [
    chunk({ content: 'a' }),
    chunk({ content: 'b' }).replace('"b"', '"\\u0062\\/\\""'),
    chunk({ content: 'c' }),
  ];
  assert.equal(
    readAll(datas).chunks,
    datas.map((data) => JSON.parse(data)),
  );
});

test('text that is not one string literal is parsed whole (or refused as JSON refuses it)', () => {
  const template = new UpstreamChunkTemplate();
  const first = chunk({ content: 'a' });
  template.learn(first, plainChunk(JSON.parse(first))!);
  assert.ok(template.match(chunk({ content: 'b' })));
  const head = first.slice(0, first.indexOf('"a"'));
  const tail = first.slice(first.indexOf('"a"') + 3);
  for (const literal of ['"a","x":"b"', '"a\u0001"', '"a\\"', '"\\q"', '1', 'null', '"a" ']) {
    assert.is(template.match(`${head}${literal}${tail}`), null, literal);
  }
});

test('fields that change per chunk, tool calls, several choices and keys written with escapes learn nothing wrong', () => {
  const datas = [
    chunk({ content: 'a' }, { obfuscation: 'x1' }),
    chunk({ content: 'b' }, { obfuscation: 'x22' }),
    JSON.stringify({
      choices: [
        { index: 0, delta: { content: 'c' } },
        { index: 1, delta: { content: 'd' } },
      ],
    }),
    JSON.stringify({
      choices: [
        { index: 0, delta: { content: 'e' } },
        { index: 1, delta: { content: 'f' } },
      ],
    }),
    '{"choices":[{"index":0,"delta":{"con\\u0074ent":"g"}}],"meta":{"content":"g"}}',
    '{"choices":[{"index":0,"delta":{"con\\u0074ent":"h"}}],"meta":{"content":"h"}}',
  ];
  assert.equal(
    readAll(datas).chunks,
    datas.map((data) => JSON.parse(data)),
  );
});

test.run();
