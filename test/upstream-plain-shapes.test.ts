import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { plainChunk, plainCompletion } from '../backends/openai-compatible/upstream-plain-shapes.js';
import { UpstreamChunkSchema, UpstreamCompletionSchema } from '../backends/openai-compatible/upstream-schemas.js';

const test = suite('upstream plain shapes: the hand checks accept only what the schemas accept unchanged');

const text = (content: unknown, extra: Record<string, unknown> = {}) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta: { role: 'assistant', content }, finish_reason: null, logprobs: null }],
  ...extra,
});

const chunks: [string, unknown, 'plain' | 'schema' | 'refused'][] = [
  ['a text delta', text('Hello'), 'plain'],
  ['a null content', text(null), 'plain'],
  [
    'a finish with usage',
    {
      id: 'x',
      choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    },
    'plain',
  ],
  ['the usage chunk (no choices)', { choices: [], usage: { prompt_tokens: 3, completion_tokens: 4 } }, 'plain'],
  ['no delta at all', { choices: [{ index: 0, finish_reason: 'length' }] }, 'plain'],
  [
    'a tool call fragment',
    {
      choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'c', function: { name: 'f', arguments: '{' } }] } }],
    },
    'schema',
  ],
  ['a legacy function call', { choices: [{ delta: { function_call: { name: 'f' } } }] }, 'schema'],
  ['content that is a number', text(5), 'refused'],
  ['choices missing', { id: 'x' }, 'refused'],
  ['choices an object', { choices: {} }, 'refused'],
  ['a fractional index', { choices: [{ index: 0.5, delta: { content: 'a' } }] }, 'refused'],
  ['negative usage', { choices: [], usage: { prompt_tokens: -1, completion_tokens: 2 } }, 'refused'],
  ['usage beyond safe integers', { choices: [], usage: { prompt_tokens: 2 ** 60, completion_tokens: 2 } }, 'refused'],
  ['an id that is a number', { id: 7, choices: [] }, 'refused'],
  ['a finish reason that is a number', { choices: [{ delta: {}, finish_reason: 1 }] }, 'refused'],
  ['an array', [], 'refused'],
  ['null', null, 'refused'],
];

test('chunks: plain ones pass as they are and equal the schema output; the rest go to the schema', () => {
  for (const [name, json, expected] of chunks) {
    const plain = plainChunk(json);
    const parsed = UpstreamChunkSchema.safeParse(json);
    if (expected === 'plain') {
      assert.ok(plain === json, `${name}: returned as is`);
      assert.ok(parsed.success, `${name}: the schema accepts it too`);
      assert.equal(plain, parsed.data, `${name}: same as the schema's copy`);
    } else {
      assert.is(plain, null, `${name}: left to the schema`);
      assert.is(
        parsed.success,
        expected === 'schema',
        `${name}: the schema ${expected === 'schema' ? 'accepts' : 'refuses'} it`,
      );
    }
  }
});

const completion = (message: unknown, extra: Record<string, unknown> = {}) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  choices: [{ index: 0, message, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1, completion_tokens: 2 },
  ...extra,
});

const completions: [string, unknown, 'plain' | 'schema' | 'refused'][] = [
  ['a text answer', completion({ role: 'assistant', content: 'Hi' }), 'plain'],
  ['a null content', completion({ role: 'assistant', content: null }), 'plain'],
  ['no usage', completion({ content: 'Hi' }, { usage: undefined }), 'plain'],
  [
    'tool calls',
    completion({ content: null, tool_calls: [{ id: 'c', function: { name: 'f', arguments: '{}' } }] }),
    'schema',
  ],
  ['no choices', completion({ content: 'Hi' }, { choices: [] }), 'refused'],
  ['no message', { choices: [{ finish_reason: 'stop' }] }, 'refused'],
  ['content an object', completion({ content: { text: 'Hi' } }), 'refused'],
  ['usage a string', completion({ content: 'Hi' }, { usage: 'lots' }), 'refused'],
];

test('completions: plain ones pass as they are and equal the schema output; the rest go to the schema', () => {
  for (const [name, json, expected] of completions) {
    const plain = plainCompletion(json);
    const parsed = UpstreamCompletionSchema.safeParse(json);
    if (expected === 'plain') {
      assert.ok(plain === json, `${name}: returned as is`);
      assert.ok(parsed.success, `${name}: the schema accepts it too`);
      assert.equal(plain, parsed.data, `${name}: same as the schema's copy`);
    } else {
      assert.is(plain, null, `${name}: left to the schema`);
      assert.is(
        parsed.success,
        expected === 'schema',
        `${name}: the schema ${expected === 'schema' ? 'accepts' : 'refuses'} it`,
      );
    }
  }
});

test.run();
