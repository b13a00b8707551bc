import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sseNamed, sseResponseEvent } from '../protocols/sse.js';

const test = suite('responses: an event carrying an encoded response is the same bytes as encoding it whole');

test('sseResponseEvent writes what sseNamed writes for { type, response, sequence_number }', () => {
  const response = {
    id: 'resp_0193a1b2c3d4abcdefghijABCDEFGHIJ',
    object: 'response',
    status: 'completed',
    output: [{ type: 'message', content: [{ type: 'output_text', text: 'a "quoted"\nline \u2028 ü' }] }],
    metadata: { note: '</script>' },
  };
  for (const type of ['response.created', 'response.completed', 'response.failed']) {
    const event = { type, response, sequence_number: 1_000_007 };
    assert.is(sseResponseEvent(type, JSON.stringify(response), 1_000_007), sseNamed(type, event));
  }
});

test.run();
