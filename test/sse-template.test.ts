import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SSE_HOLE, sseData, sseNamed, sseTemplate } from '../protocols/sse.js';
import { AWKWARD_TEXTS } from './awkward-texts.js';

const test = suite('sse template: a string spliced into an event encoded once is the event encoded whole');

test('a chat chunk and a named event, for every kind of text', () => {
  const chunk = (content: string) => ({ id: 'chatcmpl-1', choices: [{ index: 0, delta: { content } }], usage: null });
  const event = (delta: string) => ({ type: 'response.output_text.delta', item_id: 'msg_1', delta, logprobs: [] });
  const data = sseTemplate(sseData(chunk(SSE_HOLE)))!;
  const named = sseTemplate(sseNamed('response.output_text.delta', event(SSE_HOLE)))!;
  for (const text of AWKWARD_TEXTS) {
    assert.is(data.head + JSON.stringify(text) + data.tail, sseData(chunk(text)));
    assert.is(named.head + JSON.stringify(text) + named.tail, sseNamed('response.output_text.delta', event(text)));
  }
});

test('no template when the hole is missing or appears twice', () => {
  assert.is(sseTemplate(sseData({ a: 'x' })), null);
  assert.is(sseTemplate(sseData({ a: SSE_HOLE, b: SSE_HOLE })), null);
});

test.run();
