import type { FuzzFixtures } from './fuzz-fixtures.js';
import type { Labelled } from './hostile-values.js';
import { bareObject, nested, RawJson, type JsonLike } from './json-text.js';
import type { Rng } from './prng.js';

const PROMPTS = [
  'Hello there',
  'Summarise the plot of Hamlet',
  'What is 2+2?',
  'Write a haiku about rust',
  'List three colours',
  'Translate "cat" to French',
];

/** A valid, cheap chat request: one user message, a small max_tokens. */
export function baseChat(rng: Rng): Record<string, JsonLike> {
  return bareObject({
    model: 'pro-1',
    messages: [bareObject({ role: 'user', content: `${rng.pick(PROMPTS)} #${rng.int(0, 999)}` })],
    max_tokens: rng.int(8, 48),
  });
}

/** A URL a content part may point at: never a public host, so no request leaves this machine. */
function partUrl(rng: Rng): string {
  return rng.pick([
    'http://127.0.0.1:1/x.png',
    'http://localhost:1/a.jpg',
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/internal',
    'http://[::1]:1/x',
    'http://[::ffff:127.0.0.1]/x',
    'http://0x7f000001/x',
    'http://2130706433/x',
    'file:///etc/passwd',
    'gopher://127.0.0.1:70/x',
    'javascript:alert(1)',
    'data:image/png;base64,AAAA',
    'data:image/png;base64,!!!!',
    'data:,',
    'data:text/plain,hello',
    `data:image/png;base64,${'A'.repeat(4000)}`,
    'http://',
    'x'.repeat(9000),
    '',
  ]);
}

/** A content part: known types with bad fields, unknown types, or valid-looking parts with hostile payloads. */
function hostilePart(rng: Rng, fx: FuzzFixtures): JsonLike {
  return rng.weighted<() => JsonLike>([
    [
      3,
      () =>
        bareObject({
          type: rng.pick(['hologram', 'TEXT', '', 'image', 'audio', '__proto__', 'input_image', 'refusal']),
          text: 'x',
        }),
    ],
    [2, () => bareObject({ type: 'text' })],
    [2, () => bareObject({ type: 'text', text: rng.pick<JsonLike>([5, null, [], bareObject(), true]) })],
    [
      3,
      () =>
        bareObject({
          type: 'image_url',
          image_url: bareObject({ url: partUrl(rng), detail: rng.pick(['auto', 'ultra', '']) }),
        }),
    ],
    [1, () => bareObject({ type: 'image_url', image_url: partUrl(rng) })],
    [
      2,
      () =>
        bareObject({
          type: 'input_audio',
          input_audio: bareObject({
            data: rng.pick([
              'AAAA',
              '!!!',
              'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=',
              'x'.repeat(1000),
            ]),
            format: rng.pick(['wav', 'mp3', 'exe', '']),
          }),
        }),
    ],
    [
      3,
      () =>
        bareObject({
          type: 'file',
          file: rng.pick<JsonLike>([
            bareObject({ file_id: fx.foreign.fileId }),
            bareObject({ file_id: fx.own.fileId }),
            bareObject({ file_id: rng.chars(rng.pick([10, 5000])) }),
            bareObject({
              file_data: rng.pick(['AAAA', 'JVBERi0xLjQK', '!!!', 'data:application/pdf;base64,JVBERi0xLjQKJeLjz9MK']),
              filename: rng.pick(['../../etc/passwd', 'a.pdf', 'x.xlsx', '\u0000.txt']),
            }),
            bareObject({}),
            bareObject({ file_id: null, file_data: null }),
          ]),
        }),
    ],
    [1, () => bareObject({ type: 'input_video', input_video: bareObject({ url: partUrl(rng) }) })],
    [1, () => bareObject({ type: 'input_video', input_video: bareObject({ data: 'AAAAIGZ0eXBpc29t' }) })],
    [
      1,
      () =>
        bareObject({
          type: 'input_video',
          input_video: bareObject({ file_id: rng.pick([fx.own.fileId, fx.foreign.fileId, 'nope']) }),
        }),
    ],
    [1, () => bareObject({})],
    [1, () => null],
  ])();
}

function tool(
  name: JsonLike,
  parameters: JsonLike = bareObject({ type: 'object', properties: bareObject({ q: bareObject({ type: 'string' }) }) }),
): JsonLike {
  return bareObject({ type: 'function', function: bareObject({ name, description: 'a tool', parameters }) });
}

/** One hostile twist of an otherwise valid chat request; the label says which. */
export function chatTwist(rng: Rng, fx: FuzzFixtures): Labelled<Record<string, JsonLike>> {
  const body = baseChat(rng);
  const message = (body.messages as Record<string, JsonLike>[])[0]!;
  const twists: [number, () => string][] = [
    [
      3,
      () => (
        (message.role = rng.pick<JsonLike>(['robot', '', 'USER', 'system ', null, 1, '__proto__', 'tool', 'function'])),
        'unknown or odd role'
      ),
    ],
    [
      5,
      () => (
        (message.content = Array.from({ length: rng.int(1, 3) }, () => hostilePart(rng, fx))),
        'hostile content parts'
      ),
    ],
    [
      3,
      () => (
        (body.max_tokens = rng.pick<JsonLike>([
          0,
          -1,
          1e12,
          1.5,
          '64',
          null,
          new RawJson('1e999'),
          1_000_000,
          2 ** 53,
          new RawJson('-0'),
        ])),
        'max_tokens edge'
      ),
    ],
    [2, () => ((body.max_completion_tokens = rng.pick<JsonLike>([0, -5, 1e15, 7])), 'max_completion_tokens edge')],
    [3, () => ((body.n = rng.pick<JsonLike>([0, -1, 9, 1e9, 8, 2.5, '2', new RawJson('1e999')])), 'n edge')],
    [
      3,
      () => {
        const shape = rng.pick([
          'empty',
          'many',
          'not-array',
          'nulls',
          'no-role',
          'tool-no-id',
          'bad-tool-calls',
          'hundred',
        ]);
        if (shape === 'empty') body.messages = [];
        if (shape === 'many')
          body.messages = Array.from({ length: rng.pick([4096, 4097]) }, () =>
            bareObject({ role: 'user', content: 'hi' }),
          );
        if (shape === 'not-array')
          body.messages = rng.pick<JsonLike>([bareObject({ role: 'user', content: 'hi' }), 'hi', 5]);
        if (shape === 'nulls') body.messages = [null, [], 'x'];
        if (shape === 'no-role') body.messages = [bareObject({ content: 'hi' })];
        if (shape === 'tool-no-id')
          body.messages = [
            bareObject({ role: 'user', content: 'hi' }),
            bareObject({ role: 'tool', content: 'result' }),
          ];
        if (shape === 'bad-tool-calls')
          body.messages = [
            bareObject({
              role: 'assistant',
              content: null,
              tool_calls: [bareObject({ id: 1, type: 'function', function: bareObject({ name: 'f' }) })],
            }),
          ];
        if (shape === 'hundred')
          body.messages = Array.from({ length: 100 }, (_, i) =>
            bareObject({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i}` }),
          );
        return `messages: ${shape}`;
      },
    ],
    [
      2,
      () => (
        (body.temperature = rng.pick<JsonLike>([-1, 3, '0.5', new RawJson('1e999'), new RawJson('-1e999'), null])),
        'temperature edge'
      ),
    ],
    [
      2,
      () => (
        (body.stop = rng.pick<JsonLike>([['a', 'b', 'c', 'd', 'e'], [1, 2], 'x'.repeat(10_000), [''], ['\u0000']])),
        'stop edge'
      ),
    ],
    [
      3,
      () => {
        const shape = rng.pick(['129', 'bad-name', 'deep-params', 'object', 'choice-unknown', 'required']);
        if (shape === '129') body.tools = Array.from({ length: 129 }, (_, i) => tool(`t${i}`));
        if (shape === 'bad-name')
          body.tools = [tool(rng.pick<JsonLike>(['', 'a b', 'x'.repeat(65), 5, null, '__proto__']))];
        if (shape === 'deep-params') body.tools = [tool('deep', nested(rng.pick([200, 2000, 6000]), 'object'))];
        if (shape === 'object') body.tools = bareObject({ type: 'function' });
        if (shape === 'choice-unknown')
          Object.assign(body, {
            tools: [tool('known')],
            tool_choice: bareObject({ type: 'function', function: bareObject({ name: 'unknown' }) }),
          });
        if (shape === 'required') Object.assign(body, { tools: [tool('lookup')], tool_choice: 'required' });
        return `tools: ${shape}`;
      },
    ],
    [
      2,
      () => (
        (body.response_format = rng.pick<JsonLike>([
          bareObject({ type: 'xml' }),
          bareObject({ type: 'json_schema' }),
          bareObject({
            type: 'json_schema',
            json_schema: bareObject({ name: 'x', schema: nested(rng.pick([100, 3000]), 'object') }),
          }),
          'json',
        ])),
        'response_format edge'
      ),
    ],
    [
      3,
      () => (
        (body.model = rng.pick([
          'gpt-4',
          '',
          'x'.repeat(5000),
          '../../etc/passwd',
          'pro-1\u0000',
          'PRO-1',
          ' pro-1',
          '__proto__',
        ])),
        'unknown model'
      ),
    ],
    [1, () => ((body.target_variant_id = rng.pick(['nope', 'x'.repeat(5000), '', 'pro-1'])), 'target_variant_id junk')],
    [
      2,
      () =>
        Object.assign(body, {
          stream: true,
          n: rng.int(1, 3),
          stream_options: rng.pick<JsonLike>([
            bareObject({ include_usage: true, include_progress_text: true }),
            bareObject({ include_usage: 'yes' }),
            'x',
          ]),
        }) && 'streaming with options',
    ],
    [
      2,
      () => (
        (body.metadata = rng.pick<JsonLike>([
          bareObject({ sim: bareObject({ clarify: 'Which city?' }) }),
          bareObject({ sim: bareObject({ fail: 'bogus', ttft_ms: -1, tokens_per_s: 'fast' }) }),
          bareObject({ sim: 'x' }),
          [1, 2],
          'meta',
        ])),
        'metadata: sim script or wrong type'
      ),
    ],
    [
      1,
      () => (
        (body.metadata = bareObject(Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i])))),
        'metadata: 10,000 keys'
      ),
    ],
    [
      2,
      () =>
        Object.assign(body, {
          enable_judge: rng.pick<JsonLike>([true, 'yes']),
          response_mode: rng.pick(['complex', 'simple', 'auto', 'deep', 5]),
        }) && 'judge and response mode',
    ],
    [1, () => ((body.require_approval = rng.pick<JsonLike>([true, 'yes', 1])), 'require_approval')],
    [
      1,
      () =>
        Object.assign(body, {
          functions: [bareObject({ name: 'f', parameters: 'x' })],
          function_call: rng.pick<JsonLike>(['auto', 'all', bareObject({ name: 5 })]),
        }) && 'legacy functions junk',
    ],
    [1, () => ((body.user = 'u'.repeat(rng.pick([100, 10_000]))), 'long user')],
    [1, () => ((message.content = 'word '.repeat(rng.pick([2500, 20_000]))), 'long prompt (complex depth)')],
  ];
  const label = rng.weighted(twists)();
  return { value: body, label: `chat: ${label}` };
}
