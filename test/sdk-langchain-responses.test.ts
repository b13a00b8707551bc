import { HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { startServer, type TestAccount, type TestServer } from './harness.js';

const test = suite("clients: LangChain's ChatOpenAI with useResponsesApi against the server, unmodified");
let server: TestServer;
let account: TestAccount;

test.before(async () => {
  server = await startServer();
  account = await server.account(5);
});
test.after(() => server.close());

const chat = () =>
  new ChatOpenAI({
    model: 'pro-1',
    apiKey: account.token,
    configuration: { baseURL: `${server.url}/v1` },
    useResponsesApi: true,
  });

const getWeather = tool(({ city }: { city: string }) => `sunny in ${city}`, {
  name: 'get_weather',
  description: 'The weather in a city.',
  schema: z.object({ city: z.string() }),
});

test('invoke and stream over the Responses API', async () => {
  const answer = await chat().invoke('Say hello');
  assert.ok(answer.text.length > 0);
  assert.match(String(answer.id ?? answer.response_metadata.id), /^(resp|msg)_/);
  assert.ok((answer.usage_metadata?.output_tokens ?? 0) > 0);
  let chunks = 0;
  for await (const chunk of await chat().stream('Stream a few words')) chunks += chunk.text.length > 0 ? 1 : 0;
  assert.ok(chunks > 1);
});

test('a tool call, its result sent back, and an answer quoting it', async () => {
  const model = chat().bindTools([getWeather]);
  const messages: BaseMessage[] = [new HumanMessage('What is the weather in Paris? Use get_weather.')];
  const first = await model.invoke(messages);
  assert.equal(
    first.tool_calls?.map((call) => [call.name, call.args]),
    [['get_weather', { city: 'Paris' }]],
  );
  messages.push(first);
  for (const call of first.tool_calls ?? [])
    messages.push(
      new ToolMessage({
        tool_call_id: call.id!,
        content: String(await getWeather.invoke(call.args as { city: string })),
      }),
    );
  const second = await model.invoke(messages);
  assert.equal(second.tool_calls ?? [], []);
  assert.match(second.text, 'sunny in Paris');
});

test.run();
