import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  encodeResponse,
  responseObject,
  type ResponseHead,
  type ResponseState,
} from '../actors/responses/response-object.js';
import { ResponseStore, type SettledResponse } from '../actors/responses/response-store.js';
import { inputMessages, storedInputItems } from '../actors/responses/response-input.js';
import { ResponseCreateRequestSchema, ResponseObjectSchema } from '../protocols/responses.js';
import { MemoryStore } from '../runtime/store/memory-store.js';
import { runSvc, runSvcJson, type ChatCost } from '../protocols/chat-response.js';
import { costBlock, costBlockJson } from '../protocols/pricing.js';

const test = suite('responses: the answer encoded field by field, and the compact stored form read back');

const head = (body: Record<string, unknown>, id = 'resp_0193a1b2c3d4abcdefghijABCDEFGHIJ'): ResponseHead => ({
  id,
  createdAt: 1_764_000_000,
  model: 'pro-1',
  request: ResponseCreateRequestSchema.parse({ model: 'pro-1', ...body }),
});

// Requests that set every echoed field one way or another, with text that needs escaping.
const REQUESTS: Record<string, unknown>[] = [
  { input: 'hello' },
  { input: 'not kept', store: false, user: 'u', metadata: { a: 'b' } },
  { input: 'one setting', temperature: 0 },
  {
    input: [
      { role: 'user', content: [{ type: 'input_text', text: 'a "quoted"\nline \u2028 ü' }] },
      { type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
    ],
    instructions: 'Be </script> terse',
    tools: [{ type: 'function', name: 'weather', parameters: { type: 'object', properties: {} }, strict: true }],
    tool_choice: { type: 'function', name: 'weather' },
    parallel_tool_calls: false,
    text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true } },
    max_output_tokens: 64,
    temperature: 0.5,
    top_p: 0.9,
    metadata: { sim: '{"reply":"x"}', note: 'ü' },
    store: true,
    truncation: 'auto',
    previous_response_id: 'resp_0193a1b2c3d3abcdefghijABCDEFGHIJ',
    user: 'someone',
    extra_field_an_sdk_added: { nested: [1, null] },
  },
  { input: 'x', text: { format: { type: 'json_object' } }, tool_choice: 'required', background: true, store: true },
];

const STATES: ResponseState[] = [
  { status: 'in_progress', output: [], usage: null },
  {
    status: 'completed',
    output: [
      {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'It is "sunny".', annotations: [], logprobs: [] }],
      },
      { id: 'fc_1', type: 'function_call', call_id: 'call_2', name: 'weather', arguments: '{}', status: 'completed' },
    ],
    usage: { promptTokens: 12, completionTokens: 7 },
    svc: runSvc(480, { cached: false, depth: 'standard', status: 'completed', cancelReason: null }),
    cost: costBlock({ promptTokens: 12, completionTokens: 7 }) as ChatCost,
  },
  {
    status: 'incomplete',
    output: [],
    usage: { promptTokens: 1, completionTokens: 64 },
    incomplete: 'max_output_tokens',
  },
  { status: 'failed', output: [], usage: null, error: { code: 'upstream_error', message: 'down "now"' } },
];

// What STATES[1]'s svc block states.
const CHARGE: SettledResponse['charge'] = [480, false, 'standard', 'completed', null];

test('encodeResponse is JSON.stringify(responseObject(...)) for every kind of request and state', () => {
  for (const body of REQUESTS)
    for (const state of STATES) {
      const h = head(body);
      const { json, output, charge } = encodeResponse(h, state);
      assert.is(json, JSON.stringify(responseObject(h, state)));
      assert.is(output, JSON.stringify(state.output));
      assert.is(charge === null, state.svc === undefined);
    }
});

test('the svc and cost blocks written as text are their objects as JSON', () => {
  for (const priceMicros of [0, 1, 480, 1_308, 999_999, 12_345_678_901])
    for (const cached of [false, true])
      for (const cancelReason of [null, 'client disconnected', 'a "quoted" reason'])
        for (const status of ['completed', 'cancelled', 'failed'] as const) {
          const extra = { cached, depth: 'simple', status, cancelReason };
          assert.is(runSvcJson(priceMicros, extra), JSON.stringify(runSvc(priceMicros, extra)));
        }
  for (const [promptTokens, completionTokens] of [
    [0, 0],
    [17, 23],
    [1, 1_000_000],
    [123_456_789, 7],
  ] as const) {
    const usage = { promptTokens, completionTokens };
    assert.is(costBlockJson(usage), JSON.stringify(costBlock(usage)));
  }
});

test('a response with its charge as text encodes as one with the charge as objects', () => {
  const settled = STATES[1]!;
  const extra = { cached: false, depth: 'standard', status: 'completed' as const, cancelReason: null };
  const { svc, cost, ...rest } = settled;
  const asText = { ...rest, charge: `"svc":${runSvcJson(480, extra)},"cost":${costBlockJson(settled.usage!)}` };
  for (const body of REQUESTS) {
    const h = head(body);
    assert.is(encodeResponse(h, asText).json, JSON.stringify(responseObject(h, { ...rest, svc, cost })));
  }
});

test('a compact record reads back as the response the client got, with its input items and turn, owner only', async () => {
  const store = new MemoryStore();
  const responses = new ResponseStore(store);
  for (const [index, body] of REQUESTS.entries()) {
    const h = head(body, `resp_0193a1b2c3d4abcdefghij0000000${index}`);
    const state = STATES[1]!;
    const encoded = encodeResponse(h, state);
    await store.transaction(() =>
      responses.saveSettledInTransaction({
        accountId: 'acct_a',
        head: h,
        state,
        output: encoded.output,
        charge: CHARGE,
        turn: null,
      }),
    );
    const read = responses.get('acct_a', h.id)!;
    assert.is(JSON.stringify(read.response), encoded.json);
    ResponseObjectSchema.parse(read.response);
    assert.equal(read.inputItems, storedInputItems(h.request.input, h.id));
    assert.equal(read.turn, inputMessages(h.request.input));
    assert.is(read.events, null);
    assert.is(responses.get('acct_b', h.id), undefined);
  }
});

test("a compact record keeps a turn that is not the input's own (a file search's note in it)", async () => {
  const store = new MemoryStore();
  const responses = new ResponseStore(store);
  const h = head({ input: 'find it' });
  const turn = [
    { role: 'system' as const, content: 'From your files: …' },
    { role: 'user' as const, content: 'find it' },
  ];
  const state = STATES[1]!;
  await store.transaction(() =>
    responses.saveSettledInTransaction({
      accountId: 'acct_a',
      head: h,
      state,
      output: encodeResponse(h, state).output,
      charge: CHARGE,
      turn,
    }),
  );
  const read = responses.get('acct_a', h.id)!;
  assert.equal(read.turn, turn);
  assert.equal(read.response, responseObject(h, state));
});

test.run();
