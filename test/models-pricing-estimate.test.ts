import OpenAI from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestAccount, type TestServer } from './harness.js';

const test = suite('models, pricing and estimate');
let server: TestServer;
let account: TestAccount;
let broke: TestAccount;

const SNAPSHOT = /^pro-1-\d{4}-\d{2}-\d{2}$/;
const messages = [{ role: 'user', content: 'Explain the difference between a list and a tuple in Python.' }];

/** POST /v1/estimate, with an optional token. */
const estimate = (body: unknown, token?: string) =>
  server.request('POST', '/v1/estimate', { body, ...(token !== undefined && { token }) });

/** Asserts the estimate's shape and that its max cost is the tariff applied to its max processed tokens. */
function assertEstimate(body: any): void {
  assert.is(body.object, 'estimate');
  assert.type(body.cost_usd.min, 'number');
  assert.type(body.cost_usd.max, 'number');
  assert.ok(body.cost_usd.min > 0, 'min cost is positive');
  assert.ok(body.cost_usd.min <= body.cost_usd.max, `min ${body.cost_usd.min} <= max ${body.cost_usd.max}`);
  const { input, output } = body.processed_tokens;
  for (const range of [input, output]) {
    assert.ok(Number.isInteger(range.min) && Number.isInteger(range.max), 'token counts are integers');
    assert.ok(range.min <= range.max, 'token range is ordered');
  }
  assert.ok(
    Math.abs(body.cost_usd.max - (input.max * 12 + output.max * 48) / 1e6) < 1e-9,
    'max cost is the tariff on max tokens',
  );
  assert.ok(
    Math.abs(body.cost_usd.min - (input.min * 12 + output.min * 48) / 1e6) < 1e-9,
    'min cost is the tariff on min tokens',
  );
  assert.type(body.time_seconds.min, 'number');
  assert.type(body.time_seconds.max, 'number');
  assert.ok(body.time_seconds.min <= body.time_seconds.max, 'time range is ordered');
  assert.ok(body.depth === 'simple' || body.depth === 'complex', `depth ${String(body.depth)}`);
}

test.before(async () => {
  server = await startServer();
  account = await server.account(5);
  broke = await server.account(0);
});
test.after(() => server.close());

test('the SDK lists pro-1 and dated snapshots, each with a version and readiness', async () => {
  const page = await server.openai(account.token).models.list();
  const models = page.data as (OpenAI.Models.Model & { version?: unknown; readiness?: unknown })[];
  const ids = models.map((m) => m.id);
  assert.ok(ids.includes('pro-1'), `pro-1 listed: ${ids.join(', ')}`);
  assert.ok(
    ids.some((id) => SNAPSHOT.test(id)),
    `a dated snapshot listed: ${ids.join(', ')}`,
  );
  for (const model of models) {
    assert.ok(model.id === 'pro-1' || SNAPSHOT.test(model.id), `only pro-1 and its snapshots: ${model.id}`);
    assert.is(model.object, 'model');
    assert.type(model.version, 'string', `${model.id} has a version`);
    assert.ok(['ready', 'degraded', 'unavailable'].includes(model.readiness as string), `${model.id} readiness`);
  }
});

test('the SDK retrieves pro-1 with version 1.1.3', async () => {
  const model = (await server.openai(account.token).models.retrieve('pro-1')) as OpenAI.Models.Model & {
    version?: unknown;
    readiness?: unknown;
  };
  assert.is(model.id, 'pro-1');
  assert.is(model.version, '1.1.3');
  assert.is(model.readiness, 'ready');
});

test('the SDK retrieves every listed snapshot by id', async () => {
  const client = server.openai(account.token);
  const page = await client.models.list();
  for (const listed of page.data.filter((m) => SNAPSHOT.test(m.id))) {
    const model = await client.models.retrieve(listed.id);
    assert.is(model.id, listed.id);
  }
});

test('retrieving an unknown snapshot or a foreign model raises NotFoundError model_not_found', async () => {
  const client = server.openai(account.token);
  for (const id of ['pro-1-2099-01-01', 'gpt-4']) {
    try {
      await client.models.retrieve(id);
      assert.unreachable(`${id} should not be found`);
    } catch (err) {
      assert.instance(err, OpenAI.NotFoundError, id);
      assert.is((err as InstanceType<typeof OpenAI.NotFoundError>).code, 'model_not_found', id);
      assert.is((err as InstanceType<typeof OpenAI.NotFoundError>).status, 404, id);
    }
  }
});

test('GET /v1/models without a token is 401', async () => {
  const list = await server.request('GET', '/v1/models');
  assert.is(list.status, 401);
  assert.is(list.body.error.code, 'missing_authorization');
  const one = await server.request('GET', '/v1/models/pro-1');
  assert.is(one.status, 401);
});

test('GET /v1/pricing is public and states the tariff', async () => {
  const res = await server.request('GET', '/v1/pricing');
  assert.is(res.status, 200);
  assert.is(res.body.pricing_version, 'pro-1-usd-2026-07-11-r2');
  assert.is(res.body.currency, 'USD');
  assert.is(res.body.chat.input_per_1m_usd, 12);
  assert.is(res.body.chat.output_per_1m_usd, 48);
  assert.type(res.body.media, 'object');
  assert.type(res.body.media.markup_percent, 'number');
  assert.ok(res.body.media.markup_percent > 0, 'media carries a markup');
});

test('an estimate without any token returns cost, tokens, time and depth', async () => {
  const res = await estimate({ model: 'pro-1', messages });
  assert.is(res.status, 200);
  assertEstimate(res.body);
  assert.is(res.body.model, 'pro-1');
  assert.is(res.body.pricing_version, 'pro-1-usd-2026-07-11-r2');
  assert.is(res.body.depth, 'simple');
});

test('an estimate for a zero-balance account works, with its token or a garbage one, and charges nothing', async () => {
  const withToken = await estimate({ model: 'pro-1', messages }, broke.token);
  assert.is(withToken.status, 200);
  assertEstimate(withToken.body);
  const withGarbage = await estimate({ model: 'pro-1', messages }, 'sk-svc-not-a-real-token');
  assert.is(withGarbage.status, 200);
  assert.equal(withGarbage.body.cost_usd, withToken.body.cost_usd);

  const me = await server.request('GET', '/v1/account', { token: broke.token });
  assert.is(me.status, 200);
  assert.is(me.body.balance_usd, 0);
  assert.is(me.body.held_usd, 0);
});

test('an estimate charges and holds nothing on a funded account', async () => {
  for (let i = 0; i < 3; i++) assert.is((await estimate({ model: 'pro-1', messages }, account.token)).status, 200);
  const me = await server.request('GET', '/v1/account', { token: account.token });
  assert.is(me.body.balance_usd, 5);
  assert.is(me.body.held_usd, 0);
});

test('an estimate is the same for the same request', async () => {
  const first = await estimate({ model: 'pro-1', messages, max_tokens: 200 });
  const second = await estimate({ model: 'pro-1', messages, max_tokens: 200 });
  assert.equal(first.body.cost_usd, second.body.cost_usd);
  assert.equal(first.body.processed_tokens, second.body.processed_tokens);
});

test('max_tokens 100 gives a smaller max cost than no max_tokens', async () => {
  const capped = await estimate({ model: 'pro-1', messages, max_tokens: 100 });
  const open = await estimate({ model: 'pro-1', messages });
  assert.is(capped.status, 200);
  assert.is(open.status, 200);
  assertEstimate(capped.body);
  assert.ok(
    capped.body.cost_usd.max < open.body.cost_usd.max,
    `${capped.body.cost_usd.max} < ${open.body.cost_usd.max}`,
  );
  assert.ok(capped.body.processed_tokens.output.max <= 100, 'output is capped by max_tokens in simple mode');
});

test('response_mode complex gives depth complex and a larger max than simple', async () => {
  const simple = await estimate({ model: 'pro-1', messages, response_mode: 'simple' });
  const complex = await estimate({ model: 'pro-1', messages, response_mode: 'complex' });
  assert.is(simple.status, 200);
  assert.is(complex.status, 200);
  assertEstimate(simple.body);
  assertEstimate(complex.body);
  assert.is(simple.body.depth, 'simple');
  assert.is(complex.body.depth, 'complex');
  assert.ok(
    complex.body.cost_usd.max > simple.body.cost_usd.max,
    `${complex.body.cost_usd.max} > ${simple.body.cost_usd.max}`,
  );
  assert.ok(complex.body.passes.length > simple.body.passes.length, 'complex runs more passes');
});

test('n multiplies the worst case', async () => {
  const one = await estimate({ model: 'pro-1', messages, max_tokens: 100 });
  const three = await estimate({ model: 'pro-1', messages, max_tokens: 100, n: 3 });
  assert.is(three.status, 200);
  assertEstimate(three.body);
  assert.ok(
    Math.abs(three.body.cost_usd.max - 3 * one.body.cost_usd.max) < 1e-9,
    `${three.body.cost_usd.max} = 3 × ${one.body.cost_usd.max}`,
  );
});

test('an estimate accepts a dated snapshot and leaving messages out', async () => {
  const list = await server.request('GET', '/v1/models', { token: account.token });
  const snapshot = (list.body.data as { id: string }[]).map((m) => m.id).find((id) => SNAPSHOT.test(id));
  assert.ok(snapshot, 'a snapshot is listed');
  const res = await estimate({ model: snapshot, messages });
  assert.is(res.status, 200);
  assertEstimate(res.body);
  assert.is(res.body.model, snapshot);
  const bare = await estimate({ model: 'pro-1' });
  assert.is(bare.status, 200);
  assertEstimate(bare.body);
});

test('an estimate for an unknown model is 404 model_not_found', async () => {
  for (const model of ['gpt-4', 'pro-1-2099-01-01']) {
    const res = await estimate({ model, messages });
    assert.is(res.status, 404, model);
    assert.is(res.body.error.code, 'model_not_found', model);
  }
});

test('an estimate without a model is 422 with detail at body.model', async () => {
  const res = await estimate({ messages });
  assert.is(res.status, 422);
  assert.is(res.body.error.code, 'validation_error');
  assert.ok(Array.isArray(res.body.detail));
  assert.ok(
    (res.body.detail as { loc: unknown[] }[]).some(
      (item) => JSON.stringify(item.loc) === JSON.stringify(['body', 'model']),
    ),
    JSON.stringify(res.body.detail),
  );
});

test('an estimate with wrongly typed or out-of-range fields is 422', async () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['messages not an array', { messages: 'hello' }, 'messages'],
    ['n = 0', { n: 0 }, 'n'],
    ['n = 9', { n: 9 }, 'n'],
    ['temperature 3', { temperature: 3 }, 'temperature'],
    ['response_mode turbo', { response_mode: 'turbo' }, 'response_mode'],
    ['max_tokens 0', { max_tokens: 0 }, 'max_tokens'],
    ['max_tokens 1.5', { max_tokens: 1.5 }, 'max_tokens'],
  ];
  for (const [label, extra, field] of cases) {
    const res = await estimate({ model: 'pro-1', messages, ...extra });
    assert.is(res.status, 422, label);
    assert.is(res.body.error.code, 'validation_error', label);
    assert.ok(
      (res.body.detail as { loc: unknown[] }[]).some((item) => item.loc[0] === 'body' && item.loc[1] === field),
      `${label}: ${JSON.stringify(res.body.detail)}`,
    );
  }
});

test('an estimate with malformed JSON is 400 invalid_json', async () => {
  for (const raw of ['{"model":', 'not json', '']) {
    const res = await server.request('POST', '/v1/estimate', { raw, headers: { 'content-type': 'application/json' } });
    assert.is(res.status, 400, JSON.stringify(raw));
    assert.is(res.body.error.code, 'invalid_json', JSON.stringify(raw));
  }
});

test.run();
