import { createOpenAI } from '@ai-sdk/openai';
import { generateObject, generateText, stepCountIs, streamText, tool } from 'ai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { startServer, type TestAccount, type TestServer } from './harness.js';

const test = suite("clients: the AI SDK's default OpenAI model (the Responses API) against the server, unmodified");
let server: TestServer;
let account: TestAccount;
let openai: ReturnType<typeof createOpenAI>;

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

test.before(async () => {
  server = await startServer();
  account = await server.account(5);
  openai = createOpenAI({ baseURL: `${server.url}/v1`, apiKey: account.token });
});
test.after(() => server.close());

const weather = tool({
  description: 'The weather in a city.',
  inputSchema: z.object({ city: z.string() }),
  execute: ({ city }) => Promise.resolve(`sunny in ${city}`),
});

test('generateText and streamText with openai(model) answer with usage', async () => {
  const model = openai('pro-1');
  const whole = await generateText({ model, prompt: 'Say hello' });
  assert.ok(whole.text.length > 0);
  assert.ok((whole.usage.outputTokens ?? 0) > 0);
  assert.match(String(whole.response.id), /^resp_/, 'served by POST /v1/responses');
  const stream = streamText({ model, prompt: 'Stream a few words' });
  let pieces = 0;
  for await (const piece of stream.textStream) pieces += piece.length > 0 ? 1 : 0;
  assert.ok(pieces > 1, 'the answer arrives in pieces');
  assert.ok((await stream.text).length > 0);
});

test('tools with stopWhen: stepCountIs(3) end in text that uses the tool result', async () => {
  const result = await generateText({
    model: openai('pro-1'),
    prompt: 'What is the weather in Paris? Use get_weather.',
    tools: { get_weather: weather },
    stopWhen: stepCountIs(3),
  });
  assert.is(result.steps.length, 2, 'one step calls the tool, the next answers');
  assert.equal(
    result.steps[0]!.toolCalls.map((call) => call.input),
    [{ city: 'Paris' }],
  );
  assert.match(result.text, 'sunny in Paris');
});

test('streamText with tools ends in text too', async () => {
  const stream = streamText({
    model: openai('pro-1'),
    prompt: 'What is the weather in Oslo? Use get_weather.',
    tools: { get_weather: weather },
    stopWhen: stepCountIs(3),
  });
  assert.match(await stream.text, 'sunny in Oslo');
});

test('generateObject with a zod schema', async () => {
  const schema = z.object({ title: z.string(), tags: z.array(z.string()), rating: z.number().int().min(1).max(5) });
  const result = await generateObject({ model: openai('pro-1'), schema, prompt: 'Review the film Metropolis' });
  assert.ok(schema.safeParse(result.object).success, JSON.stringify(result.object));
});

test.run();
