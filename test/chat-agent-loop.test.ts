import type OpenAI from 'openai';
import { zodFunction, zodResponseFormat } from 'openai/helpers/zod';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { startServer, type TestAccount, type TestServer } from './harness.js';

const test = suite('chat completions: the official SDK runs tool loops and parses structured answers against the sim');
let server: TestServer;
let account: TestAccount;
let client: OpenAI;

test.before(async () => {
  server = await startServer();
  account = await server.account(5);
  client = server.openai(account.token);
});
test.after(() => server.close());

const tools = [
  zodFunction({ name: 'get_weather', parameters: z.object({ city: z.string(), unit: z.enum(['c', 'f']) }) }),
  zodFunction({ name: 'get_time', parameters: z.object({ city: z.string() }) }),
];

test('runTools: both named tools are called at once, their results come back, and the loop ends in text', async () => {
  const seen: string[] = [];
  const runner = client.chat.completions.runTools({
    model: 'pro-1',
    messages: [{ role: 'user', content: 'Paris: use get_weather and get_time' }],
    tools: [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'The weather in a city.',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          function: (args: { city: string }) => (seen.push(`weather ${args.city}`), '{"temp":21}'),
          parse: JSON.parse,
        },
      },
      {
        type: 'function',
        function: {
          name: 'get_time',
          description: 'The time in a city.',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          function: (args: { city: string }) => (seen.push(`time ${args.city}`), '14:05'),
          parse: JSON.parse,
        },
      },
    ],
  });
  const text = await runner.finalContent();
  assert.equal(seen.sort(), ['time Paris', 'weather Paris']);
  assert.match(text ?? '', 'get_weather returned {"temp":21}');
  assert.match(text ?? '', 'get_time returned 14:05');
  assert.ok((await runner.totalUsage()).completion_tokens > 0, 'usage is summed over the loop');
});

test('parallel_tool_calls false: one call per step', async () => {
  const first = await client.chat.completions.create({
    model: 'pro-1',
    messages: [{ role: 'user', content: 'Paris: use get_weather and get_time' }],
    tools,
    parallel_tool_calls: false,
  });
  assert.equal(
    first.choices[0]!.message.tool_calls!.map((call) => (call as { function: { name: string } }).function.name),
    ['get_weather'],
  );
});

test('chat.completions.parse with a zod schema gets an object that validates', async () => {
  const Event = z.object({
    name: z.string(),
    date: z.string(),
    participants: z.array(z.string()),
    priority: z.enum(['low', 'high']),
    location: z.object({ city: z.string(), indoors: z.boolean() }).nullable(),
  });
  const completion = await client.chat.completions.parse({
    model: 'pro-1',
    messages: [{ role: 'user', content: 'Alice and Bob are going to a science fair on Friday.' }],
    response_format: zodResponseFormat(Event, 'event'),
    max_tokens: 2000,
  });
  const parsed = completion.choices[0]!.message.parsed;
  assert.ok(parsed, completion.choices[0]!.message.content ?? '');
  assert.ok(Event.safeParse(parsed).success);
});

test.run();
