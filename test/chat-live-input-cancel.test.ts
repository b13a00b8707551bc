import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chatBody, startServer, type TestAccount, type TestServer } from './harness.js';

const test = suite('chat completions: live input and cancel by completion id');
let server: TestServer;
let account: TestAccount;

test.before(async () => {
  server = await startServer();
  account = await server.account(20);
});
test.after(() => server.close());

/** Starts a slow streaming completion and resolves with its id once the first chunk arrives. */
async function startSlow(extra: Record<string, unknown> = {}) {
  const res = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.token}` },
    body: JSON.stringify(
      chatBody('A slow one', { stream: true, max_tokens: 400, metadata: { sim: { tokens_per_s: 100 } }, ...extra }),
    ),
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes('\n\n')) text += decoder.decode((await reader.read()).value, { stream: true });
  const id = JSON.parse(text.slice(6, text.indexOf('\n\n'))).id as string;
  const rest = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return text;
      text += decoder.decode(value, { stream: true });
    }
  })();
  return { id, rest, headerId: res.headers.get('x-completion-id') };
}

test('cancel stops a running completion: final chunk says so, [DONE] follows, the charge covers what was processed', async () => {
  const before = (await server.request('GET', '/v1/account', { token: account.token })).body.balance_usd;
  const run = await startSlow();
  assert.is(run.headerId, run.id);
  const cancel = await server.request('POST', `/v1/chat/completions/${run.id}/cancel`, {
    token: account.token,
    body: { reason: 'changed my mind' },
  });
  assert.is(cancel.status, 200);
  assert.is(cancel.body.cancelled, true);
  assert.is(cancel.body.state, 'cancelled');
  const raw = await run.rest;
  assert.ok(raw.endsWith('data: [DONE]\n\n'));
  const chunks = raw
    .split('\n\n')
    .filter((e) => e.startsWith('data: {'))
    .map((e) => JSON.parse(e.slice(6)));
  const final = chunks.at(-1);
  assert.is(final.svc.status, 'cancelled');
  assert.is(final.svc.cancel_reason, 'changed my mind');
  assert.ok(final.usage.completion_tokens < 400);
  const after = (await server.request('GET', '/v1/account', { token: account.token })).body.balance_usd;
  assert.is(Math.round((before - after) * 1e6), Math.round(final.svc.price_usd * 1e6));
});

test('cancel without a body works, and cancelling twice reports it already ended', async () => {
  const run = await startSlow();
  const first = await fetch(`${server.url}/v1/chat/completions/${run.id}/cancel`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.token}` },
  });
  assert.is(first.status, 200);
  await run.rest;
  const second = await server.request('POST', `/v1/chat/completions/${run.id}/cancel`, { token: account.token });
  assert.is(second.status, 200);
  assert.is(second.body.cancelled, false);
  assert.is(second.body.state, 'cancelled');
});

test('live input is accepted, reported by GET, and joins the next phase of a complex run', async () => {
  const run = await startSlow({ response_mode: 'complex', metadata: { sim: { tokens_per_s: 200 } } });
  const sent = await server.request('POST', `/v1/chat/completions/${run.id}/live-input`, {
    token: account.token,
    body: { content: 'Also mention Rome', question_id: 'q1' },
  });
  assert.is(sent.status, 200);
  assert.is(sent.body.accepted, true);
  assert.is(sent.body.seq, 1);
  const status = await server.request('GET', `/v1/chat/completions/${run.id}/live-input`, { token: account.token });
  assert.is(status.status, 200);
  assert.is(status.body.inputs.length, 1);
  assert.is(status.body.inputs[0].question_id, 'q1');
  await server.request('POST', `/v1/chat/completions/${run.id}/cancel`, { token: account.token });
  await run.rest;
  const after = await server.request('GET', `/v1/chat/completions/${run.id}/live-input`, { token: account.token });
  assert.is(after.body.active, false);
  assert.ok(
    after.body.inputs[0].used_in === null || ['draft', 'check', 'judge'].includes(after.body.inputs[0].used_in),
  );
});

test('live input to a finished completion is 409 with x-should-retry false', async () => {
  const done = await server.request('POST', '/v1/chat/completions', { token: account.token, body: chatBody('quick') });
  const id = done.headers.get('x-completion-id')!;
  assert.is(done.body.id, id);
  const late = await server.request('POST', `/v1/chat/completions/${id}/live-input`, {
    token: account.token,
    body: { content: 'too late' },
  });
  assert.is(late.status, 409);
  assert.is(late.headers.get('x-should-retry'), 'false');
});

test('unknown and foreign completion ids are 404 on every live route', async () => {
  const other = await server.account(5);
  const run = await startSlow();
  for (const [method, suffix, body] of [
    ['POST', 'live-input', { content: 'x' }],
    ['GET', 'live-input', undefined],
    ['POST', 'cancel', {}],
  ] as const) {
    const foreign = await server.request(method, `/v1/chat/completions/${run.id}/${suffix}`, {
      token: other.token,
      body,
    });
    assert.is(foreign.status, 404, `foreign ${method} ${suffix}`);
    const unknown = await server.request(method, `/v1/chat/completions/chatcmpl-nope/${suffix}`, {
      token: account.token,
      body,
    });
    assert.is(unknown.status, 404, `unknown ${method} ${suffix}`);
  }
  await server.request('POST', `/v1/chat/completions/${run.id}/cancel`, { token: account.token });
  await run.rest;
});

test('bad live-input and cancel bodies are 422', async () => {
  const run = await startSlow();
  const missing = await server.request('POST', `/v1/chat/completions/${run.id}/live-input`, {
    token: account.token,
    body: { question_id: 'q' },
  });
  assert.is(missing.status, 422);
  assert.equal(missing.body.detail[0].loc, ['body', 'content']);
  const wrongType = await server.request('POST', `/v1/chat/completions/${run.id}/live-input`, {
    token: account.token,
    body: { content: 'x', source: 5 },
  });
  assert.is(wrongType.status, 422);
  const badCancel = await server.request('POST', `/v1/chat/completions/${run.id}/cancel`, {
    token: account.token,
    body: { reason: 12 },
  });
  assert.is(badCancel.status, 422);
  await server.request('POST', `/v1/chat/completions/${run.id}/cancel`, { token: account.token });
  await run.rest;
});

test('target_variant_id must be a snapshot of the requested model', async () => {
  const ok = await server.request('POST', '/v1/chat/completions', {
    token: account.token,
    body: chatBody('v', { target_variant_id: 'pro-1-2026-03-02' }),
  });
  assert.is(ok.status, 200);
  const bad = await server.request('POST', '/v1/chat/completions', {
    token: account.token,
    body: chatBody('v', { target_variant_id: 'turbo-9' }),
  });
  assert.is(bad.status, 422);
  assert.equal(bad.body.detail[0].loc, ['body', 'target_variant_id']);
  const cross = await server.request('POST', '/v1/chat/completions', {
    token: account.token,
    body: chatBody('v', { model: 'pro-1-2026-07-11', target_variant_id: 'pro-1-2026-03-02' }),
  });
  assert.is(cross.status, 422);
});

test.run();
