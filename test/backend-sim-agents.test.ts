import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChatBackendRequest, ToolDefinition } from '../backends/chat-backend.js';
import { createSimChatBackend } from '../backends/sim/sim-chat-backend.js';
import type { ChatMessage } from '../protocols/chat.js';
import { chatBackendRequest, collect } from './contracts/backend.js';

const sim = createSimChatBackend({ ttftMs: 0, tokensPerSecond: 0 });

/** The answer of one sim call: its text, its tool calls (joined from their fragments) and how it ended. */
async function answer(overrides: Partial<ChatBackendRequest>) {
  const events = await collect(sim.stream(chatBackendRequest({ maxTokens: 4096, ...overrides })));
  const calls: { id: string; name: string; arguments: string }[] = [];
  let text = '';
  let finish: string | null = null;
  for (const event of events) {
    if (event.type === 'delta') text += event.text;
    if (event.type === 'tool_call') {
      if (event.id) calls[event.index] = { id: event.id, name: event.name!, arguments: '' };
      calls[event.index]!.arguments += event.arguments;
    }
    if (event.type === 'done') finish = event.finishReason;
  }
  return { text, calls, finish };
}

const json = suite('sim: json_schema answers validate against the schema');
const ajv = new Ajv({ allErrors: true });
// ajv-formats is CommonJS: its plugin is the module's default export.
formats.default(ajv);

const SCHEMAS: [string, Record<string, unknown>][] = [
  [
    'a pydantic model with $defs, enums, nested arrays, nullable fields and no extra properties',
    {
      $defs: {
        Step: {
          type: 'object',
          properties: { explanation: { type: 'string' }, output: { type: 'string' } },
          required: ['explanation', 'output'],
          additionalProperties: false,
        },
        Mood: { type: 'string', enum: ['calm', 'busy', 'tired'] },
      },
      type: 'object',
      properties: {
        steps: { type: 'array', items: { $ref: '#/$defs/Step' }, minItems: 1 },
        final_answer: { type: 'string', minLength: 3, maxLength: 40 },
        mood: { $ref: '#/$defs/Mood' },
        confidence: { type: 'number', minimum: 0, maximum: 1 },
        note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        count: { type: 'integer', exclusiveMinimum: 10, multipleOf: 5 },
        tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, uniqueItems: true, maxItems: 3 },
        flag: { type: 'boolean' },
        when: { type: 'string', format: 'date-time' },
        contact: { type: 'string', format: 'email' },
      },
      required: ['steps', 'final_answer', 'mood', 'confidence', 'note', 'count', 'tags', 'flag', 'when', 'contact'],
      additionalProperties: false,
    },
  ],
  [
    'a strict calendar event (OpenAI structured outputs example)',
    {
      type: 'object',
      properties: {
        name: { type: 'string' },
        date: { type: 'string' },
        participants: { type: 'array', items: { type: 'string' } },
      },
      required: ['name', 'date', 'participants'],
      additionalProperties: false,
    },
  ],
  [
    'a recursive tree with allOf and a const',
    {
      definitions: {
        node: {
          allOf: [{ type: 'object', properties: { label: { type: 'string' } }, required: ['label'] }],
          properties: { kind: { const: 'node' }, children: { type: 'array', items: { $ref: '#/definitions/node' } } },
          required: ['kind', 'children'],
        },
      },
      $ref: '#/definitions/node',
    },
  ],
  [
    'a bare array of integers with bounds',
    { type: 'array', items: { type: 'integer', minimum: -3, maximum: 3 }, minItems: 4, maxItems: 4 },
  ],
];

for (const [what, schema] of SCHEMAS) {
  json(`${what}: valid JSON of the schema, the same for the same input`, async () => {
    const request = {
      messages: [{ role: 'user', content: 'Plan a calm Tuesday with Ada and Linus' }] as ChatMessage[],
      responseFormat: { type: 'json_schema' as const, schema },
    };
    const first = await answer(request);
    const value: unknown = JSON.parse(first.text);
    const validate = ajv.compile(schema);
    assert.ok(validate(value), `${JSON.stringify(validate.errors)} for ${first.text}`);
    assert.is((await answer(request)).text, first.text, 'deterministic');
    assert.is(first.finish, 'stop');
  });
}

json('json_object answers {"answer": text}; a scripted JSON reply is kept as it is', async () => {
  const object = await answer({ responseFormat: { type: 'json_object', schema: null } });
  assert.type((JSON.parse(object.text) as { answer: unknown }).answer, 'string');
  const scripted = await answer({
    responseFormat: { type: 'json_schema', schema: { type: 'object', properties: { n: { type: 'integer' } } } },
    metadata: { sim: { reply: '{"n": 42}' } },
  });
  assert.equal(JSON.parse(scripted.text), { n: 42 });
});

json.run();

const tools = suite('sim: tool loops end, several tools are called at once, results are quoted');

const WEATHER: ToolDefinition = {
  name: 'get_weather',
  description: null,
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
    required: ['city', 'unit'],
    additionalProperties: false,
  },
};
const TIME: ToolDefinition = {
  name: 'get_time',
  description: null,
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

const ask: ChatMessage = { role: 'user', content: 'Paris: use get_weather and get_time please' };

function withResults(calls: { id: string; name: string; arguments: string }[], outputs: string[]): ChatMessage[] {
  return [
    {
      role: 'assistant',
      content: null,
      tool_calls: calls.map((call) => ({
        id: call.id,
        type: 'function' as const,
        function: { name: call.name, arguments: call.arguments },
      })),
    },
    ...calls.map((call, i): ChatMessage => ({ role: 'tool', tool_call_id: call.id, content: outputs[i]! })),
  ];
}

tools('a prompt naming two tools calls both at once, with arguments from the schema and the prompt', async () => {
  const first = await answer({ messages: [ask], tools: [WEATHER, TIME] });
  assert.is(first.finish, 'tool_calls');
  assert.equal(
    first.calls.map((call) => call.name),
    ['get_weather', 'get_time'],
  );
  assert.equal(JSON.parse(first.calls[0]!.arguments), { city: 'Paris', unit: 'c' });
  assert.equal(JSON.parse(first.calls[1]!.arguments), { city: 'Paris' });
  assert.is.not(first.calls[0]!.id, first.calls[1]!.id);
});

tools('after the results come back the sim answers in text quoting them, instead of calling again', async () => {
  const first = await answer({ messages: [ask], tools: [WEATHER, TIME] });
  const second = await answer({
    messages: [ask, ...withResults(first.calls, ['{"temp":21}', '14:05'])],
    tools: [WEATHER, TIME],
  });
  assert.is(second.finish, 'stop');
  assert.equal(second.calls, []);
  assert.match(second.text, 'get_weather returned {"temp":21}');
  assert.match(second.text, 'get_time returned 14:05');
});

tools('with parallel_tool_calls false it calls one tool per step, each once, then answers', async () => {
  const request = { tools: [WEATHER, TIME], parallelToolCalls: false };
  const first = await answer({ ...request, messages: [ask] });
  assert.equal(
    first.calls.map((call) => call.name),
    ['get_weather'],
  );
  const afterOne = [ask, ...withResults(first.calls, ['sunny'])];
  const second = await answer({ ...request, messages: afterOne });
  assert.equal(
    second.calls.map((call) => call.name),
    ['get_time'],
  );
  const third = await answer({ ...request, messages: [...afterOne, ...withResults(second.calls, ['noon'])] });
  assert.equal(third.calls, []);
  assert.match(third.text, 'get_weather returned sunny; get_time returned noon');
});

tools('a forced or required tool already called with the same arguments in this turn is not called again', async () => {
  for (const toolChoice of ['required', { name: 'get_weather' }] as const) {
    const first = await answer({ messages: [ask], tools: [WEATHER], toolChoice });
    assert.equal(
      first.calls.map((call) => call.name),
      ['get_weather'],
    );
    const second = await answer({
      messages: [ask, ...withResults(first.calls, ['rain'])],
      tools: [WEATHER],
      toolChoice,
    });
    assert.equal(second.calls, [], JSON.stringify(toolChoice));
    assert.match(second.text, 'rain');
  }
});

tools('a new user message starts a new turn: the tool may be called again', async () => {
  const first = await answer({ messages: [ask], tools: [WEATHER] });
  const history = [
    ask,
    ...withResults(first.calls, ['rain']),
    { role: 'assistant', content: 'It rains.' } as ChatMessage,
  ];
  const again = await answer({
    messages: [...history, { role: 'user', content: 'And now get_weather for Paris?' }],
    tools: [WEATHER],
  });
  assert.equal(
    again.calls.map((call) => call.name),
    ['get_weather'],
  );
});

tools('a scripted tool call is made once per turn too', async () => {
  const metadata = { sim: { tool_call: { name: 'lookup', arguments: { q: 'x' } } } };
  const lookup: ToolDefinition = { name: 'lookup', description: null, parameters: null };
  const first = await answer({ messages: [ask], tools: [lookup], metadata });
  assert.equal(
    first.calls.map((call) => call.arguments),
    ['{"q":"x"}'],
  );
  const second = await answer({ messages: [ask, ...withResults(first.calls, ['found'])], tools: [lookup], metadata });
  assert.equal(second.calls, []);
  assert.match(second.text, 'lookup returned found');
});

tools('json_schema after tool results draws its strings from the results', async () => {
  const first = await answer({ messages: [ask], tools: [WEATHER] });
  const schema = {
    type: 'object',
    properties: { summary: { type: 'string' } },
    required: ['summary'],
    additionalProperties: false,
  };
  const second = await answer({
    messages: [ask, ...withResults(first.calls, ['drizzle drizzle drizzle'])],
    tools: [WEATHER],
    responseFormat: { type: 'json_schema', schema },
  });
  assert.ok(ajv.validate(schema, JSON.parse(second.text)));
});

tools.run();
