import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { startServer, type TestAccount, type TestServer } from './harness.js';

const test = suite('clients: the OpenAI Agents SDK on the Responses API against the server, unmodified');
let server: TestServer;
let account: TestAccount;

test.before(async () => {
  // Traces would go to OpenAI's own platform: off, as for any self-hosted provider.
  setTracingDisabled(true);
  server = await startServer();
  account = await server.account(5);
});
test.after(() => server.close());

test('an agent with a function tool: it calls the tool and answers with its result', async () => {
  let calls = 0;
  const getWeather = tool({
    name: 'get_weather',
    description: 'The weather in a city.',
    parameters: z.object({ city: z.string() }),
    execute: ({ city }) => {
      calls += 1;
      return `sunny in ${city}`;
    },
  });
  const agent = new Agent({
    name: 'Weather agent',
    instructions: 'Answer questions about the weather; use the tool.',
    model: 'pro-1',
    tools: [getWeather],
  });
  const client = new OpenAI({ apiKey: account.token, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const runner = new Runner({ modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: true }) });
  const result = await runner.run(agent, 'What is the weather in Paris? Use get_weather.');
  assert.is(calls, 1, 'the tool ran once');
  assert.match(String(result.finalOutput), 'sunny in Paris');
});

test('a streamed agent run ends with the same kind of answer', async () => {
  const agent = new Agent({ name: 'Greeter', instructions: 'Greet briefly.', model: 'pro-1' });
  const client = new OpenAI({ apiKey: account.token, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const runner = new Runner({ modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: true }) });
  const stream = await runner.run(agent, 'Say hello', { stream: true });
  let text = '';
  for await (const chunk of stream.toTextStream()) text += chunk;
  await stream.completed;
  assert.ok(text.length > 0);
  assert.is(String(stream.finalOutput), text);
});

test.run();
