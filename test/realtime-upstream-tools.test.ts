import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChatMessage } from '../protocols/chat.js';
import { answerSse, chunk, startFakeUpstream, type FakeUpstream } from './fake-upstream.js';
import { startServer, type TestServer } from './harness.js';
import { connectCall } from './realtime-client.js';

// An openai-compatible upstream behind a realtime call gets the session's tools and, after the
// client's output, the call and its result as chat messages.

let upstream: FakeUpstream;
let server: TestServer;
const test = suite('realtime function calling through an openai-compatible upstream');

test.before(async () => {
  upstream = await startFakeUpstream((request, res) => {
    const messages = request.body.messages as ChatMessage[];
    const usage = { prompt_tokens: 20, completion_tokens: 5 };
    if (messages.some((message) => message.role === 'tool'))
      return answerSse(res, [chunk({ content: 'It is sunny.' }), chunk({ finishReason: 'stop', usage })]);
    const call = { index: 0, id: 'call_up', type: 'function', function: { name: 'get_weather', arguments: '' } };
    answerSse(res, [
      chunk({ toolCalls: [call] }),
      chunk({ toolCalls: [{ index: 0, function: { arguments: '{"city":' } }] }),
      chunk({ toolCalls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
      chunk({ finishReason: 'tool_calls', usage }),
    ]);
  });
  server = await startServer({
    SVC_BACKEND: 'openai-compatible',
    SVC_UPSTREAM_BASE_URL: upstream.url,
    SVC_UPSTREAM_API_KEY: 'sk-upstream',
    SVC_UPSTREAM_MODEL: 'upstream-model-7b',
  });
});
test.after(async () => {
  await server.close();
  await upstream.close();
});

test('the upstream gets the tools, its call streams to the client, and the output returns as a tool message', async () => {
  const account = await server.account();
  const client = await connectCall(server, account.token);
  await client.next('session.created');
  const parameters = { type: 'object', properties: { city: { type: 'string' } } };
  client.send({
    type: 'session.update',
    session: {
      output_modalities: ['text'],
      tools: [{ type: 'function', name: 'get_weather', description: 'Weather', parameters }],
    },
  });
  client.send({
    type: 'conversation.item.create',
    item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] },
  });
  client.send({ type: 'response.create' });
  const first = await client.next('response.done', 10_000);
  const call = first.response.output[0];
  assert.equal(
    [call.type, call.call_id, call.name, call.arguments],
    ['function_call', 'call_up', 'get_weather', '{"city":"Paris"}'],
  );
  const asked = upstream.requests[0]!.body;
  assert.equal(asked.tools, [
    { type: 'function', function: { name: 'get_weather', description: 'Weather', parameters } },
  ]);
  assert.is(asked.tool_choice, 'auto');

  client.send({
    type: 'conversation.item.create',
    item: { type: 'function_call_output', call_id: 'call_up', output: 'sunny' },
  });
  client.send({ type: 'response.create' });
  const second = await client.next('response.done', 10_000);
  assert.is(second.response.output[0].content[0].text, 'It is sunny.');
  const messages = upstream.requests[1]!.body.messages as ChatMessage[];
  const assistant = messages.find((message) => message.role === 'assistant');
  assert.equal(
    assistant?.tool_calls?.map((c) => [c.id, c.function.name, c.function.arguments]),
    [['call_up', 'get_weather', '{"city":"Paris"}']],
  );
  const tool = messages.find((message) => message.role === 'tool');
  assert.equal([tool?.tool_call_id, tool?.content], ['call_up', 'sunny']);
  client.close();
});

test.run();
