import OpenAI from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chatBody, startServer, type TestAccount, type TestServer } from './harness.js';
import {
  answerJson,
  chunk,
  echoModel,
  refusedUrl,
  sendEvent,
  startFakeUpstream,
  startSse,
  type FakeHandler,
  type FakeUpstream,
} from './fake-upstream.js';

const test = suite('chat completions through an openai-compatible upstream: relay and strict failure');
const KEY = 'sk-upstream-secret-value-123';

let mode: 'echo' | '500' | 'slow' | 'drop' = 'echo';
let upstream: FakeUpstream;
let server: TestServer;
let account: TestAccount;

const handler: FakeHandler = async (request, res) => {
  if (mode === '500') return answerJson(res, 500, { error: { message: `boom, key was ${KEY}` } });
  if (mode === 'slow') return void setTimeout(() => res.destroy(), 2000);
  if (mode === 'drop') {
    startSse(res);
    sendEvent(res, chunk({ content: 'Half an ' }));
    sendEvent(res, chunk({ content: 'answer' }));
    setTimeout(() => res.destroy(), 20);
    return;
  }
  return echoModel(request, res);
};

test.before(async () => {
  upstream = await startFakeUpstream(handler);
  server = await startServer({
    SVC_BACKEND: 'openai-compatible',
    SVC_UPSTREAM_BASE_URL: upstream.url,
    SVC_UPSTREAM_API_KEY: KEY,
    SVC_UPSTREAM_MODEL: 'upstream-model-7b',
    SVC_UPSTREAM_TIMEOUT_MS: '300',
    SVC_CHAT_CACHE_TTL_S: '0',
  });
  account = await server.account(5);
});
test.after(async () => {
  await server.close();
  await upstream.close();
});
test.before.each(() => {
  mode = 'echo';
});

async function balance(): Promise<number> {
  return Math.round((await server.request('GET', '/v1/account', { token: account.token })).body.balance_usd * 1e6);
}

test('non-streaming answers come from the upstream with our model name, key sent only upstream', async () => {
  const before = await balance();
  const completion = await server.openai(account.token).chat.completions.create({
    model: 'pro-1',
    messages: [{ role: 'user', content: 'echo this back' }],
    max_tokens: 30,
  });
  const last = upstream.requests.at(-1)!;
  assert.is(last.body.model, 'upstream-model-7b');
  assert.is(last.headers.authorization, `Bearer ${KEY}`);
  assert.is(completion.model, 'pro-1');
  assert.ok(completion.choices[0]!.message.content!.length > 0);
  const price = Math.round((completion as unknown as { svc: { price_usd: number } }).svc.price_usd * 1e6);
  assert.is(price, completion.usage!.prompt_tokens * 12 + completion.usage!.completion_tokens * 48);
  assert.is(before - (await balance()), price);
});

test('streaming relays the upstream chunks and ends with usage, svc and [DONE]', async () => {
  const before = await balance();
  let text = '';
  let price = 0;
  for await (const c of await server.openai(account.token).chat.completions.create({
    model: 'pro-1',
    messages: [{ role: 'user', content: 'stream it' }],
    max_tokens: 30,
    stream: true,
  })) {
    text += c.choices[0]?.delta.content ?? '';
    const svc = (c as unknown as { svc?: { price_usd: number } }).svc;
    if (svc) price = Math.round(svc.price_usd * 1e6);
  }
  assert.ok(text.length > 0);
  assert.ok(price > 0);
  assert.is(before - (await balance()), price);
});

test('an upstream 500 is a 502 upstream_error, nothing charged, the key never shown', async () => {
  mode = '500';
  const before = await balance();
  const res = await server.request('POST', '/v1/chat/completions', { token: account.token, body: chatBody('x') });
  assert.is(res.status, 502);
  assert.is(res.body.error.code, 'upstream_error');
  assert.not.ok(JSON.stringify(res.body).includes(KEY));
  assert.is(await balance(), before);
});

test('an upstream that does not answer in time is a 504 upstream_timeout', async () => {
  mode = 'slow';
  const res = await server.request('POST', '/v1/chat/completions', { token: account.token, body: chatBody('x') });
  assert.is(res.status, 504);
  assert.is(res.body.error.code, 'upstream_timeout');
});

test('a mid-stream drop ends the stream with an error event the SDK raises, and charges nothing', async () => {
  mode = 'drop';
  const before = await balance();
  let text = '';
  try {
    for await (const c of await server.openai(account.token).chat.completions.create({
      ...(chatBody('x') as object),
      stream: true,
    } as OpenAI.ChatCompletionCreateParamsStreaming)) {
      text += c.choices[0]?.delta.content ?? '';
    }
    assert.unreachable('the stream must not end silently');
  } catch (err) {
    assert.instance(err, OpenAI.APIError);
  }
  assert.is(text, 'Half an answer');
  assert.is(await balance(), before);
});

test('an upstream that refuses connections is a 503 upstream_unavailable', async () => {
  const down = await startServer({
    SVC_BACKEND: 'openai-compatible',
    SVC_UPSTREAM_BASE_URL: await refusedUrl(),
    SVC_UPSTREAM_MODEL: 'm',
    SVC_UPSTREAM_API_KEY: KEY,
  });
  try {
    const acct = await down.account(1);
    const res = await down.request('POST', '/v1/chat/completions', { token: acct.token, body: chatBody('x') });
    assert.is(res.status, 503);
    assert.is(res.body.error.code, 'upstream_unavailable');
    assert.not.ok(JSON.stringify(res.body).includes(KEY));
    assert.is((await down.request('GET', '/v1/account', { token: acct.token })).body.balance_usd, 1);
  } finally {
    await down.close();
  }
});

test.run();
