// The serve bench's inputs: command-line values refused with a clear message, prompts from a JSONL
// file (and its bad lines), the synthetic lengths, and gamma arrivals with vLLM's burstiness.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { arrivalGaps } from '../bench/serve/arrivals.js';
import { filePrompts, seededRandom, syntheticPrompts } from '../bench/serve/prompt-source.js';
import { serveOptionsFromArgs, serverPidFromArgs } from '../bench/serve/serve-cli.js';
import { requestBody } from '../bench/serve/stream-request.js';

const test = suite('bench serve: options, prompts and arrivals');

test('defaults: a concurrency sweep over 1, 4, 16, 64 on chat completions', () => {
  const options = serveOptionsFromArgs({});
  assert.is(options.mode, 'concurrency');
  assert.equal(options.points, [1, 4, 16, 64]);
  assert.is(options.api, 'chat');
  assert.equal(options.slo, {});
  const rate = serveOptionsFromArgs({
    rate: '2,5,10',
    burstiness: '0.5',
    slo: 'ttft=500,tpot=50',
    'max-concurrency': '8',
  });
  assert.is(rate.mode, 'rate');
  assert.equal(rate.points, [2, 5, 10]);
  assert.is(rate.burstiness, 0.5);
  assert.is(rate.maxConcurrency, 8);
  assert.equal(rate.slo, { ttftMs: 500, tpotMs: 50 });
});

test('bad values are refused with what was wrong', () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ target: 'http://x', token: 't' }, /needs --model/],
    [{ concurrency: '1,4', rate: '2' }, /give one/],
    [{ concurrency: '1,zero' }, /--concurrency must be positive numbers/],
    [{ concurrency: '1.5' }, /whole numbers/],
    [{ rate: '-1' }, /--rate must be positive/],
    [{ api: 'completions' }, /--api must be chat or responses/],
    [{ 'input-tokens': '0,1' }, /--input-tokens must be mean/],
    [{ 'output-tokens': '10,-2' }, /--output-tokens must be mean/],
    [{ 'output-tokens': '10,2,3' }, /--output-tokens must be mean/],
    [{ slo: 'ttft=fast' }, /--slo must be/],
    [{ slo: 'latency=5' }, /--slo must be/],
    [{ burstiness: '0' }, /--burstiness must be a number/],
    [{ requests: 'many' }, /--requests must be a number/],
    [{ prompts: '/nonexistent/prompts.jsonl' }, /no file/],
    [{ 'client-threads': '0' }, /--client-threads must be a number/],
  ];
  for (const [args, message] of cases) assert.throws(() => serveOptionsFromArgs(args), message, JSON.stringify(args));
});

test('--server-pid names a running process on this machine', () => {
  assert.is(serverPidFromArgs({}), null);
  assert.is(serverPidFromArgs({ 'server-pid': String(process.pid) }), process.pid);
  for (const bad of ['0', 'abc', '1.5', '999999999'])
    assert.throws(() => serverPidFromArgs({ 'server-pid': bad }), /--server-pid must be the id of a running process/);
});

test('prompts from JSONL: strings, prompt or messages, an output length per line or drawn', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-prompts-'));
  try {
    const file = join(dir, 'p.jsonl');
    writeFileSync(
      file,
      [
        '"Say hello"',
        '{"prompt": "Write a poem about the sea", "max_tokens": 200}',
        '',
        '{"messages": [{"role": "system", "content": "Be brief"}, {"role": "user", "content": "Why?"}]}',
      ].join('\n'),
    );
    const prompts = filePrompts(file, { mean: 50, stddev: 0 }, 1);
    assert.equal(prompts(0).messages, [{ role: 'user', content: 'Say hello' }]);
    assert.is(prompts(0).maxTokens, 50);
    assert.is(prompts(1).maxTokens, 200);
    assert.is(prompts(2).messages.length, 2);
    assert.equal(prompts(3).messages, prompts(0).messages, 'the file is used in turn');
    for (const [line, message] of [
      ['{"prompt": "a"', /p.jsonl:1: not JSON/],
      ['{"max_tokens": 5}', /p.jsonl:1: needs exactly one of prompt or messages/],
      ['{"prompt": "a", "max_tokens": 0}', /p.jsonl:1:/],
      ['{"messages": [{"role": "tool", "content": "x"}]}', /p.jsonl:1:/],
    ] as const) {
      writeFileSync(file, line);
      assert.throws(() => filePrompts(file, null, 1), message, line);
    }
    writeFileSync(file, '\n\n');
    assert.throws(() => filePrompts(file, null, 1), /no prompts/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('synthetic prompts: unique, of the drawn lengths, the same for the same seed', () => {
  const make = () => syntheticPrompts({ input: { mean: 100, stddev: 20 }, output: { mean: 50, stddev: 10 }, seed: 9 });
  const a = make();
  const b = make();
  const drawn = Array.from({ length: 2000 }, (_, i) => a(i));
  assert.equal(b(0), drawn[0]);
  assert.is(new Set(drawn.map((p) => p.messages[0]!.content)).size, 2000);
  const words = drawn.map((p) => p.messages[0]!.content.split(' ').length);
  const mean = words.reduce((s, n) => s + n, 0) / words.length;
  assert.ok(Math.abs(mean - 101) < 3, `mean words ${mean}`); // the opening adds one word
  const outputs = drawn.map((p) => p.maxTokens!);
  assert.ok(Math.abs(outputs.reduce((s, n) => s + n, 0) / outputs.length - 50) < 1.5);
  assert.ok(Math.min(...outputs) >= 1);
});

test('arrivals: gamma gaps with mean 1/rate; burstiness sets their spread (1 is Poisson)', () => {
  for (const burstiness of [0.5, 1, 4]) {
    const gap = arrivalGaps({ rate: 10, burstiness, random: seededRandom(burstiness * 100) });
    const gaps = Array.from({ length: 40_000 }, gap);
    const mean = gaps.reduce((s, g) => s + g, 0) / gaps.length;
    const variance = gaps.reduce((s, g) => s + (g - mean) ** 2, 0) / gaps.length;
    assert.ok(Math.abs(mean - 100) < 3, `burstiness ${burstiness}: mean gap ${mean} ms`);
    // A gamma with shape k has a squared coefficient of variation of 1/k.
    const cv2 = variance / mean ** 2;
    assert.ok(Math.abs(cv2 - 1 / burstiness) < 0.1 / burstiness, `burstiness ${burstiness}: CV² ${cv2}`);
  }
});

test('request bodies: streamed chat with usage and max_tokens; Responses with max_output_tokens; ignore_eos on request', () => {
  const prompt = { messages: [{ role: 'user' as const, content: 'hi' }], maxTokens: 32, estimatedInputTokens: 1 };
  const chat = JSON.parse(requestBody({ api: 'chat', model: 'm', ignoreEos: false }, prompt));
  assert.equal(chat, {
    model: 'm',
    messages: prompt.messages,
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: 32,
  });
  const responses = JSON.parse(requestBody({ api: 'responses', model: 'm', ignoreEos: true }, prompt));
  assert.equal(responses, {
    model: 'm',
    input: [{ role: 'user', content: 'hi' }],
    stream: true,
    max_output_tokens: 32,
    ignore_eos: true,
  });
});

test.run();
