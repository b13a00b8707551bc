import OpenAI from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestAccount, type TestServer } from './harness.js';

const test = suite('openai sdk: the official client works by changing base URL and key');
let server: TestServer;
let account: TestAccount;

test.before(async () => {
  server = await startServer();
  account = await server.account(5);
});
test.after(() => server.close());

test('models.list pages through the catalogue', async () => {
  const ids: string[] = [];
  for await (const model of server.openai(account.token).models.list()) ids.push(model.id);
  assert.ok(ids.includes('pro-1'));
});

test('chat.completions.create returns the completion with svc and cost blocks', async () => {
  const client = server.openai(account.token);
  const completion = await client.chat.completions.create({
    model: 'pro-1',
    messages: [{ role: 'user', content: 'Say hello' }],
    max_tokens: 50,
  });
  assert.is(completion.object, 'chat.completion');
  assert.ok(completion.id.startsWith('chatcmpl-'));
  assert.type(completion.choices[0]!.message.content, 'string');
  const extra = completion as unknown as {
    svc: { price_usd: number; model_version: string; billing: { pricing_version: string } };
    cost: object;
  };
  const usage = completion.usage!;
  assert.is(extra.svc.price_usd, (usage.prompt_tokens * 12 + usage.completion_tokens * 48) / 1e6);
  assert.is(extra.svc.model_version, '1.1.3');
  assert.is(extra.svc.billing.pricing_version, 'pro-1-usd-2026-07-11-r2');
  assert.type(extra.cost, 'object');
});

test('a bad key raises AuthenticationError', async () => {
  try {
    await server.openai('sk-svc-wrong').models.list();
    assert.unreachable();
  } catch (err) {
    assert.instance(err, OpenAI.AuthenticationError);
    assert.is((err as InstanceType<typeof OpenAI.APIError>).status, 401);
  }
});

test('an unknown model raises NotFoundError with code model_not_found', async () => {
  try {
    await server
      .openai(account.token)
      .chat.completions.create({ model: 'gpt-9', messages: [{ role: 'user', content: 'x' }] });
    assert.unreachable();
  } catch (err) {
    assert.instance(err, OpenAI.NotFoundError);
    assert.is((err as InstanceType<typeof OpenAI.APIError>).code, 'model_not_found');
  }
});

test('a validation failure raises UnprocessableEntityError and carries the request id', async () => {
  try {
    await server.openai(account.token).chat.completions.create({ model: 'pro-1', messages: [], temperature: 5 });
    assert.unreachable();
  } catch (err) {
    assert.instance(err, OpenAI.UnprocessableEntityError);
    const apiErr = err as InstanceType<typeof OpenAI.APIError>;
    assert.is(apiErr.code, 'validation_error');
    assert.ok(apiErr.requestID, 'request id header visible to the SDK');
  }
});

test('a rate-limited key raises RateLimitError', async () => {
  const limited = await server.account(1);
  await server.request('PATCH', `/v1/account/tokens/${limited.tokenId}`, {
    token: limited.session,
    body: { requests_per_minute: 1 },
  });
  const client = server.openai(limited.token);
  await client.models.retrieve('pro-1');
  try {
    await client.models.retrieve('pro-1');
    assert.unreachable();
  } catch (err) {
    assert.instance(err, OpenAI.RateLimitError);
    assert.is((err as InstanceType<typeof OpenAI.APIError>).code, 'rate_limit_exceeded');
  }
});

test('an empty balance raises an APIError with status 402', async () => {
  const broke = await server.account(0);
  try {
    await server
      .openai(broke.token)
      .chat.completions.create({ model: 'pro-1', messages: [{ role: 'user', content: 'x' }] });
    assert.unreachable();
  } catch (err) {
    assert.instance(err, OpenAI.APIError);
    assert.is((err as InstanceType<typeof OpenAI.APIError>).status, 402);
    assert.is((err as InstanceType<typeof OpenAI.APIError>).code, 'insufficient_balance');
  }
});

test.run();
