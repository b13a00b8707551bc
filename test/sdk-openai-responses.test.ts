import { zodResponseFormat, zodTextFormat } from 'openai/helpers/zod';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { startServer, type TestAccount, type TestServer } from './harness.js';

const test = suite('clients: the official openai SDK 7 structured outputs on responses and chat, unmodified');
let server: TestServer;
let account: TestAccount;

test.before(async () => {
  server = await startServer();
  account = await server.account(5);
});
test.after(() => server.close());

const Review = z.object({
  title: z.string(),
  tags: z.array(z.string()),
  rating: z.number().int().min(1).max(5),
  verdict: z.enum(['see', 'skip']),
  details: z.object({ year: z.number().int(), director: z.string() }),
});

test('responses.parse with zodTextFormat: output_parsed validates against the schema', async () => {
  const response = await server.openai(account.token).responses.parse({
    model: 'pro-1',
    input: 'Review the film Metropolis',
    text: { format: zodTextFormat(Review, 'review') },
  });
  assert.is(response.status, 'completed');
  const parsed = response.output_parsed;
  assert.ok(parsed, 'the SDK parsed the answer');
  assert.ok(Review.safeParse(parsed).success);
});

test('responses.stream with zodTextFormat: the final response is parsed too', async () => {
  const stream = server.openai(account.token).responses.stream({
    model: 'pro-1',
    input: 'Review the film Nosferatu',
    text: { format: zodTextFormat(Review, 'review') },
  });
  const final = await stream.finalResponse();
  assert.ok(Review.safeParse(final.output_parsed).success);
});

test('chat.completions.parse with zodResponseFormat', async () => {
  const completion = await server.openai(account.token).chat.completions.parse({
    model: 'pro-1',
    messages: [{ role: 'user', content: 'Review the film Metropolis' }],
    response_format: zodResponseFormat(Review, 'review'),
  });
  assert.ok(Review.safeParse(completion.choices[0]!.message.parsed).success);
});

test('responses.create with json_object answers a JSON object', async () => {
  const response = await server.openai(account.token).responses.create({
    model: 'pro-1',
    input: 'Give me a JSON object describing a cat',
    text: { format: { type: 'json_object' } },
  });
  const value: unknown = JSON.parse(response.output_text);
  assert.type(value, 'object');
});

test.run();
