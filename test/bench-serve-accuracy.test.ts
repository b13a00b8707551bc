// The serve bench's timings against a fake model server with a known pace (real HTTP on loopback,
// the server on a thread of its own): TTFT, ITL and output tokens/s must match what the server
// really did (its own clock) within 5 % or 1 ms, at concurrency 1 and 64, for chat completions and
// the Responses API. A comparison with a measured truth, not a timing target. TTFT and ITL are
// compared at their medians: on the shared 2-core test machine one scheduler stall of the client
// (50 ms, seen at load average 12) delays a whole wave of tokens and moves a mean by more than 5 %.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { percentile } from '../bench/serve/serve-figures.js';
import { runServeSweep } from '../bench/serve/serve-scenario.js';
import type { ServeOptions } from '../bench/serve/serve-options.js';
import type { RequestTiming } from '../bench/serve/stream-request.js';
import type { Pacing, ServedRequest } from './doubles/paced-openai-server.js';
import { startPacedWorker } from './doubles/paced-openai-worker-client.js';

const test = suite('bench serve: timings match a paced fake server');

// 25 tokens/s per stream: at 64 streams, 1,600 chunks/s, which one client thread reads with time to spare.
const PACING: Pacing = { ttftMs: 100, gapMs: 40, tokens: 8, promptTokens: 40, usage: true };

function options(url: string, overrides: Partial<ServeOptions>): ServeOptions {
  return {
    url,
    token: 'sk-fake',
    model: 'paced',
    api: 'chat',
    mode: 'concurrency',
    points: [1],
    maxConcurrency: null,
    burstiness: 1,
    requests: 8,
    durationMs: null,
    inputTokens: { mean: 32, stddev: 8 },
    outputTokens: { mean: 8, stddev: 0 },
    promptsFile: null,
    ignoreEos: false,
    slo: {},
    timeoutMs: 10_000,
    seed: 7,
    // A few unmeasured requests first, so the code they run is compiled before the figures count.
    warmupRequests: 4,
    clientThreads: 1,
    ...overrides,
  };
}

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

/** The index a synthetic prompt carries in its opening (`request <run>-<index>:`). */
function promptIndex(served: ServedRequest): number {
  const body = served.body as { messages?: { content: string }[]; input?: { content: string }[] };
  const text = (body.messages ?? body.input)![0]!.content;
  return Number(/^request \w+-(\d+):/.exec(text)![1]);
}

/**
 * The truth for each figure: when the server really wrote each token (wall clock, its own thread)
 * against when the client sent the request. What separates the client's figures from these is
 * only the client's own delay in reading what arrived, which is what is checked.
 */
function truth(served: ServedRequest[], timings: RequestTiming[]) {
  const sentAt = new Map(timings.map((t) => [t.index, t.sentAt]));
  const tokens = served.reduce((sum, s) => sum + s.writesMs.length, 0);
  const spanS = (Math.max(...served.map((s) => s.endMs)) - Math.min(...timings.map((t) => t.sentAt))) / 1000;
  return {
    ttftMs: median(served.map((s) => s.writesMs[0]! - sentAt.get(promptIndex(s))!)),
    itlMs: median(served.flatMap((s) => s.writesMs.slice(1).map((w, i) => w - s.writesMs[i]!))),
    outputTokensPerS: tokens / spanS,
  };
}

function close(figure: string, measured: number, real: number): void {
  const allowed = Math.max(0.05 * real, 1);
  assert.ok(
    Math.abs(measured - real) <= allowed,
    `${figure}: measured ${measured.toFixed(3)}, the server's ${real.toFixed(3)} (allowed ±${allowed.toFixed(3)})`,
  );
}

for (const [api, concurrency, requests, clientThreads] of [
  ['chat', 1, 8, 1],
  ['chat', 64, 128, 1],
  ['responses', 1, 8, 1],
  ['responses', 64, 128, 1],
  ['chat', 64, 128, 2],
] as const)
  test(`${api}: TTFT, ITL and output tokens/s within 5 % (or 1 ms) of the server's at concurrency ${concurrency}${clientThreads > 1 ? `, ${clientThreads} client threads` : ''}`, async () => {
    const server = await startPacedWorker(PACING);
    try {
      const report = await runServeSweep(options(server.url, { api, points: [concurrency], requests, clientThreads }));
      const [point] = report.points;
      const f = point!.figures;
      assert.is(f.completed, requests, JSON.stringify(f.errors));
      assert.is(f.failed, 0);
      assert.is(f.tokensEstimated, false, 'tokens came from the usage');
      assert.is(f.totalOutputTokens, requests * PACING.tokens);
      assert.is(f.totalInputTokens, requests * PACING.promptTokens);
      // The warm-up requests (prompts 0–3) are served but not counted.
      const served = (await server.served()).filter((s) => promptIndex(s) >= 4);
      assert.is(served.length, requests);
      const real = truth(served, point!.timings);
      assert.ok(real.ttftMs >= PACING.ttftMs && real.itlMs > 0, 'the server kept its pace');
      close('TTFT p50', f.ttftMs!.p50, real.ttftMs);
      close('ITL p50', f.itlMs!.p50, real.itlMs);
      // TPOT with one chunk per token is the gap after the first token, per request.
      close('TPOT p50', f.tpotMs!.p50, real.itlMs);
      close('output tokens/s', f.outputTokensPerS, real.outputTokensPerS);
      assert.equal(
        point!.timings.map((t) => t.index),
        Array.from({ length: requests }, (_, i) => i + 4),
        'every prompt number once, after the warm-up',
      );
      const body = served[0]!.body as Record<string, unknown>;
      if (api === 'chat') {
        assert.equal(body.stream_options, { include_usage: true });
        assert.is(body.max_tokens, 8);
      } else assert.is(body.max_output_tokens, 8);
    } finally {
      await server.close();
    }
  });

test('without usage from the server, tokens are counted from the chunks and marked as estimated', async () => {
  const server = await startPacedWorker({ ...PACING, usage: false });
  try {
    const report = await runServeSweep(options(server.url, { requests: 4 }));
    const f = report.points[0]!.figures;
    assert.is(f.completed, 4);
    assert.is(f.tokensEstimated, true);
    assert.is(f.totalOutputTokens, 4 * PACING.tokens);
  } finally {
    await server.close();
  }
});

test("a failing warm-up request stops the run with the server's answer", async () => {
  const server = await startPacedWorker(PACING);
  try {
    await runServeSweep(options(`${server.url}/nowhere`, {})).then(
      () => assert.unreachable('the sweep ran'),
      (err: Error) => assert.match(err.message, /warm-up request failed \(http_404\)/),
    );
  } finally {
    await server.close();
  }
});

test('failures are counted by kind and left out of the latency figures', async () => {
  const server = await startPacedWorker(PACING);
  try {
    // A wrong host path: every request is a 404 from the server.
    const report = await runServeSweep(options(`${server.url}/nowhere`, { requests: 3, warmupRequests: 0 }));
    const f = report.points[0]!.figures;
    assert.is(f.completed, 0);
    assert.equal(f.errors, { http_404: 3 });
    assert.is(f.ttftMs, null);
    assert.ok(report.warnings.some((w) => /no request completed/.test(w)));
  } finally {
    await server.close();
  }
});

test.run();
