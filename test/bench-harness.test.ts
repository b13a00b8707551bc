// Keeps the load side of bench/ from rotting: a tiny chat run against the gateway and the bare
// uWS baseline must produce a complete report. No timing assertions: figures are only sane.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Histogram } from '../bench/load/histogram.js';
import { runScenario } from '../bench/load/scenarios.js';
import { SseCounter } from '../bench/load/sse-counter.js';

const test = suite('bench harness: load scenarios report every figure');

test('the chat scenario reports the gateway and the bare uWS baseline', async () => {
  const report = await runScenario('chat', { connections: 2, durationMs: 1000, warmupMs: 200, rate: 50, rounds: 1, timeoutMs: 5000, target: null, inProcess: false, baselines: ['uws'] });
  assert.is(report.scenario, 'chat');
  assert.equal(
    report.rows.map((row) => row.name),
    ['svc gateway', 'bare uWS'],
  );
  for (const row of report.rows) {
    assert.is(row.status, 'ok', `${row.name}: ${row.note}`);
    assert.ok(row.requests > 0, `${row.name} completed requests`);
    assert.equal(row.errors, {}, `${row.name} had no errors`);
    assert.ok(row.requestsPerSecond > 0);
    assert.ok(row.latencyMs.p50 > 0 && row.latencyMs.p50 <= row.latencyMs.p99 && row.latencyMs.p99 <= row.latencyMs.max, `${row.name} percentiles are ordered`);
    assert.ok(row.server && row.server.pid !== null && row.server.rssMbMax > 0, `${row.name} server was sampled`);
  }
  assert.ok(report.direct && report.direct.calls > 0 && report.direct.eventsPerCall > 0, 'the direct backend call was timed');
  const figures = report.checks.map((check) => check.figure);
  assert.ok(figures.includes('requests/s, ours ÷ bare uWS'));
  assert.ok(figures.includes('added p99 (ours − bare uWS)'));
  assert.ok(report.checks.every((check) => check.value !== null), 'every figure was measured');
});

test('the histogram orders its percentiles within 2 % of the recorded values', () => {
  const histogram = new Histogram();
  for (let i = 1; i <= 1000; i++) histogram.record(i / 100); // 0.01 … 10 ms
  const summary = histogram.summary();
  assert.is(summary.count, 1000);
  assert.ok(Math.abs(summary.p50 - 5) / 5 < 0.02, `p50 ${summary.p50}`);
  assert.ok(Math.abs(summary.p99 - 9.9) / 9.9 < 0.02, `p99 ${summary.p99}`);
  assert.is(summary.max, 10);
  const other = new Histogram();
  other.record(20);
  histogram.merge(other.data);
  assert.is(histogram.summary().max, 20);
});

test('the SSE counter splits events across chunk boundaries and sees [DONE]', () => {
  const times: number[] = [];
  const counter = new SseCounter((at) => times.push(at));
  counter.push(Buffer.from('data: {"a":1}\n\nda'), 1);
  counter.push(Buffer.from('ta: {"b":2}\n'), 2);
  counter.push(Buffer.from('\n: keep-alive\n\ndata: [DONE]\n\n'), 3);
  assert.equal(counter.finish(), { events: 3, done: true, badPayload: null });
  assert.equal(times, [1, 3, 3]);
  const broken = new SseCounter(() => undefined);
  broken.push(Buffer.from('data: {not json}\n\n'), 1);
  assert.is(broken.finish().done, false);
});

test.run();
