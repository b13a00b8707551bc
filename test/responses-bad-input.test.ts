import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestAccount, type TestServer } from './harness.js';

const test = suite('responses: bad input is a 422 with detail naming the field, never a 500');
let server: TestServer;
let account: TestAccount;
let stored: string;

test.before(async () => {
  server = await startServer();
  account = await server.account(5);
  stored = (await server.openai(account.token).responses.create({ model: 'pro-1', input: 'hi' })).id;
});
test.after(() => server.close());

const BAD_BODIES: [string, unknown, (string | number)[]][] = [
  ['no model', { input: 'hi' }, ['body', 'model']],
  ['input of the wrong type', { model: 'pro-1', input: 5 }, ['body', 'input']],
  ['an unknown item type', { model: 'pro-1', input: [{ type: 'bogus' }] }, ['body', 'input', 0, 'type']],
  [
    'a message without role',
    { model: 'pro-1', input: [{ type: 'message', content: 'x' }] },
    ['body', 'input', 0, 'role'],
  ],
  [
    'an image part with no source',
    { model: 'pro-1', input: [{ role: 'user', content: [{ type: 'input_image' }] }] },
    ['body', 'input', 0, 'content', 0],
  ],
  [
    'a function call output without call_id',
    { model: 'pro-1', input: [{ type: 'function_call_output', output: 'x' }] },
    ['body', 'input', 0, 'call_id'],
  ],
  [
    'an unsupported tool',
    { model: 'pro-1', input: 'x', tools: [{ type: 'web_search' }] },
    ['body', 'tools', 0, 'type'],
  ],
  [
    'a function tool with a bad name',
    { model: 'pro-1', input: 'x', tools: [{ type: 'function', name: 'has space' }] },
    ['body', 'tools', 0, 'name'],
  ],
  [
    'json_schema without a schema',
    { model: 'pro-1', input: 'x', text: { format: { type: 'json_schema', name: 'a' } } },
    ['body', 'text', 'format', 'schema'],
  ],
  ['max_output_tokens of 0', { model: 'pro-1', input: 'x', max_output_tokens: 0 }, ['body', 'max_output_tokens']],
  ['temperature above 2', { model: 'pro-1', input: 'x', temperature: 3 }, ['body', 'temperature']],
  ['an unknown include', { model: 'pro-1', input: 'x', include: ['everything'] }, ['body', 'include', 0]],
  ['truncation of the wrong kind', { model: 'pro-1', input: 'x', truncation: 'some' }, ['body', 'truncation']],
  ['store as a string', { model: 'pro-1', input: 'x', store: 'yes' }, ['body', 'store']],
  ['no input at all', { model: 'pro-1' }, ['body', 'input']],
  ['an empty input list', { model: 'pro-1', input: [] }, ['body', 'input']],
];

for (const [name, body, loc] of BAD_BODIES) {
  test(`POST /v1/responses: ${name}`, async () => {
    const res = await server.request('POST', '/v1/responses', { token: account.token, body });
    assert.is(res.status, 422, JSON.stringify(res.body));
    assert.equal(res.body.detail[0].loc, loc);
    assert.ok(!/Invalid input$/.test(res.body.detail[0].msg), res.body.detail[0].msg);
  });
}

test('POST /v1/responses: an unknown model is 404 model_not_found; an unknown previous response 404', async () => {
  const model = await server.request('POST', '/v1/responses', {
    token: account.token,
    body: { model: 'nope', input: 'x' },
  });
  assert.is(model.status, 404);
  assert.is(model.body.error.code, 'model_not_found');
  const previous = await server.request('POST', '/v1/responses', {
    token: account.token,
    body: { model: 'pro-1', input: 'x', previous_response_id: 'resp_missing' },
  });
  assert.is(previous.status, 404);
});

test('POST /v1/responses: malformed JSON is a 400, no token a 401', async () => {
  const malformed = await server.request('POST', '/v1/responses', {
    token: account.token,
    raw: '{"model":',
    headers: { 'content-type': 'application/json' },
  });
  assert.is(malformed.status, 400);
  const anonymous = await server.request('POST', '/v1/responses', { body: { model: 'pro-1', input: 'x' } });
  assert.is(anonymous.status, 401);
});

const BAD_QUERIES: [string, (string | number)[]][] = [
  ['input_items?limit=0', ['query', 'limit']],
  ['input_items?limit=101', ['query', 'limit']],
  ['input_items?limit=ten', ['query', 'limit']],
  ['input_items?order=sideways', ['query', 'order']],
  ['input_items?after=msg_unknown', ['query', 'after']],
  ['input_items?before=msg_unknown', ['query', 'before']],
  ['?stream=maybe', ['query', 'stream']],
  ['?stream=true&starting_after=x', ['query', 'starting_after']],
];

for (const [query, loc] of BAD_QUERIES) {
  test(`GET /v1/responses/{id}${query.startsWith('?') ? '' : '/'}${query}`, async () => {
    const path = `/v1/responses/${stored}${query.startsWith('?') ? '' : '/'}${query}`;
    const res = await server.request('GET', path, { token: account.token });
    assert.is(res.status, 422, JSON.stringify(res.body));
    assert.equal(res.body.detail[0].loc, loc);
  });
}

test('unknown ids are 404 on every route', async () => {
  for (const [method, path] of [
    ['GET', '/v1/responses/resp_unknown'],
    ['DELETE', '/v1/responses/resp_unknown'],
    ['GET', '/v1/responses/resp_unknown/input_items'],
  ] as const) {
    const res = await server.request(method, path, { token: account.token });
    assert.is(res.status, 404, `${method} ${path}`);
  }
});

test.run();
