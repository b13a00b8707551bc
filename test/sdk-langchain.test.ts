import { tool } from '@langchain/core/tools';
import { HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { startServer, type TestAccount, type TestServer } from './harness.js';

const test = suite("clients: LangChain's ChatOpenAI against the server, unmodified");
let server: TestServer;
let account: TestAccount;

test.before(async () => {
  server = await startServer();
  account = await server.account(5);
});
test.after(() => server.close());

const chat = (options: { useResponsesApi?: boolean } = {}) =>
  new ChatOpenAI({ model: 'pro-1', apiKey: account.token, configuration: { baseURL: `${server.url}/v1` }, ...options });

const getWeather = tool(({ city }: { city: string }) => `sunny in ${city}`, {
  name: 'get_weather',
  description: 'The weather in a city.',
  schema: z.object({ city: z.string() }),
});

test('invoke and stream over chat completions', async () => {
  const answer = await chat().invoke('Say hello');
  assert.ok(answer.text.length > 0);
  assert.ok((answer.usage_metadata?.output_tokens ?? 0) > 0);
  let chunks = 0;
  for await (const chunk of await chat().stream('Stream a few words')) chunks += chunk.text.length > 0 ? 1 : 0;
  assert.ok(chunks > 1);
});

test('a tool loop by hand: the model calls the tool, reads its result and answers', async () => {
  const model = chat().bindTools([getWeather]);
  const messages: BaseMessage[] = [new HumanMessage('What is the weather in Paris? Use get_weather.')];
  const first = await model.invoke(messages);
  assert.equal(
    first.tool_calls?.map((call) => [call.name, call.args]),
    [['get_weather', { city: 'Paris' }]],
  );
  messages.push(first);
  for (const call of first.tool_calls ?? []) {
    messages.push(
      new ToolMessage({
        tool_call_id: call.id!,
        content: String(await getWeather.invoke(call.args as { city: string })),
      }),
    );
  }
  const second = await model.invoke(messages);
  assert.equal(second.tool_calls ?? [], []);
  assert.match(second.text, 'sunny in Paris');
});

test('withStructuredOutput with a zod schema', async () => {
  const schema = z.object({ name: z.string(), year: z.number().int() });
  const result = await chat().withStructuredOutput(schema).invoke('Name a film and its year');
  assert.ok(schema.safeParse(result).success, JSON.stringify(result));
});

test.run();
