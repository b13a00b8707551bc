// Keeps bench/ from rotting: a tiny chat run against the gateway and the bare uWS baseline, a
// 20-follower session fan-out, 20 held SSE streams, a small run of the host benchmarks and a handful
// of realtime calls (idle, then live) must each produce a complete report. No timing assertions: figures are only sane.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { benchSearch } from '../bench/files/search-bench.js';
import { formatSearch } from '../bench/files/search-table.js';
import { formatUpload, runUploadBench } from '../bench/files/upload-bench.js';
import { runHostBench } from '../bench/host/run-host.js';
import { runMicro } from '../bench/micro.js';
import { Histogram } from '../bench/load/histogram.js';
import { runScenario } from '../bench/load/scenarios.js';
import { runSessionFanout } from '../bench/load/session-fanout.js';
import { SessionEventReader } from '../bench/load/session-event-reader.js';
import { SseCounter } from '../bench/load/sse-counter.js';
import { runSseHold } from '../bench/load/sse-hold.js';
import { formatSseHold } from '../bench/load/sse-hold-table.js';
import { formatActive } from '../bench/realtime/active-table.js';
import { formatIdle } from '../bench/realtime/idle-table.js';
import { runRealtimeActive } from '../bench/realtime/realtime-active.js';
import { runRealtimeIdle } from '../bench/realtime/realtime-idle.js';

const test = suite('bench harness: host and load benchmarks report every figure');

test('the chat scenario reports the gateway and the bare uWS baseline', async () => {
  const report = await runScenario('chat', {
    connections: 2,
    durationMs: 1000,
    warmupMs: 200,
    rate: 50,
    rounds: 1,
    timeoutMs: 5000,
    target: null,
    inProcess: false,
    baselines: ['uws'],
  });
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
    assert.ok(
      row.latencyMs.p50 > 0 && row.latencyMs.p50 <= row.latencyMs.p99 && row.latencyMs.p99 <= row.latencyMs.max,
      `${row.name} percentiles are ordered`,
    );
    assert.ok(row.server && row.server.pid !== null && row.server.rssMbMax > 0, `${row.name} server was sampled`);
  }
  assert.ok(
    report.direct && report.direct.calls > 0 && report.direct.eventsPerCall > 0,
    'the direct backend call was timed',
  );
  const figures = report.checks.map((check) => check.figure);
  assert.ok(figures.includes('requests/s, ours ÷ bare uWS'));
  assert.ok(figures.includes('added p99 (ours − bare uWS)'));
  assert.ok(
    report.checks.every((check) => check.value !== null),
    'every figure was measured',
  );
});

test('the chat-stream scenario streams complete SSE answers from the gateway and the bare uWS SSE baseline', async () => {
  const report = await runScenario('chat-stream', {
    connections: 2,
    durationMs: 1000,
    warmupMs: 200,
    rate: 50,
    rounds: 1,
    timeoutMs: 5000,
    target: null,
    inProcess: false,
    baselines: ['uws-sse'],
  });
  assert.equal(
    report.rows.map((row) => row.name),
    ['svc gateway', 'bare uWS SSE'],
  );
  for (const row of report.rows) {
    assert.is(row.status, 'ok', `${row.name}: ${row.note}`);
    assert.ok(row.requests > 0, `${row.name} completed streams`);
    assert.equal(row.errors, {}, `${row.name} had no errors`);
  }
});

test('the micro benchmarks measure every benchmark and its baseline', async () => {
  const results = await runMicro({ timeMs: 20 });
  assert.ok(results.length >= 6, `${results.length} benchmarks`);
  for (const result of results)
    assert.ok(result.opsPerSecond > 0 && result.p50Us > 0, `${result.group}: ${result.name}`);
  assert.ok(results.some((result) => result.name.startsWith('baseline:')));
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

test('the session-fanout scenario delivers every event to every follower, in order, on the gateway and the baseline', async () => {
  const followers = 20;
  const report = await runSessionFanout({
    followers,
    inputs: 10,
    inputGapMs: 20,
    tokensPerSecond: 20,
    connectTimeoutMs: 20_000,
    timeoutMs: 30_000,
    inProcess: false,
    target: null,
  });
  assert.equal(
    report.rows.map((row) => row.name),
    ['svc gateway', 'bare uWS fan-out'],
  );
  for (const row of report.rows) {
    assert.is(row.ready, followers, `${row.name}: every follower connected`);
    assert.ok(
      row.complete,
      `${row.name}: every follower got 1…${row.finalSeq} in order (${row.order.firstProblem ?? JSON.stringify(row.errors)})`,
    );
    assert.ok(
      row.liveEvents >= 12,
      `${row.name}: approve, a phase, 10 live inputs and the ending are live events (${row.stream})`,
    );
    assert.is(row.latencyMs.count, row.liveEvents * followers, `${row.name}: one latency per delivery`);
    assert.ok(
      row.latencyMs.p50 <= row.latencyMs.p99 && row.latencyMs.p99 <= row.latencyMs.max,
      `${row.name}: percentiles are ordered`,
    );
    assert.ok(row.server && row.server.rssMbReady > 0 && row.server.during !== null, `${row.name}: server was sampled`);
  }
  assert.ok(report.rows[0]!.stream.includes('live_input×10'), report.rows[0]!.stream);
});

test('the sse-hold scenario holds every stream delivering on the gateway and the bare baseline, then aborts them all', async () => {
  const streams = 20;
  const report = await runSseHold({
    streams,
    holdMs: 1000,
    concurrency: 5,
    openTimeoutMs: 10_000,
    inProcess: false,
    target: null,
  });
  assert.equal(
    report.rows.map((row) => row.name),
    ['svc gateway', 'bare uWS SSE hold'],
  );
  for (const row of report.rows) {
    assert.equal(row.errors, {}, `${row.name}: no errors (${JSON.stringify(row.errorSamples)})`);
    assert.is(row.opened, streams, `${row.name}: every stream opened`);
    assert.is(row.openMs.count, streams, `${row.name}: one first-byte time per stream`);
    assert.is(row.delivering, streams, `${row.name}: every stream still delivered at the end of the hold`);
    assert.is(row.endedEarly, 0, `${row.name}: no stream ended before the abort`);
    assert.ok(row.answersAfterAbortMs !== null, `${row.name}: a new stream answered after the abort`);
    assert.ok(
      row.server && row.server.rssMbBefore > 0 && row.server.rssMbHeldMax > 0,
      `${row.name}: server memory was read`,
    );
  }
  assert.ok(formatSseHold(report).includes('RSS < 1 GiB'));
});

test('the host benchmarks report every figure, with baselines, and a rehydration run of each kind', async () => {
  const report = await runHostBench({ timeMs: 50, parallel: 20, burst: 5, followers: 20, rehydrate: 200 });
  const groups = new Set(report.figures.map((f) => f.group));
  for (const group of groups) {
    const rows = report.figures.filter((f) => f.group === group);
    if (group !== 'rehydration')
      assert.ok(rows.some((f) => f.baseline) && rows.some((f) => !f.baseline), `${group} has a baseline beside ours`);
    for (const row of rows) assert.ok(row.count > 0 && row.perSecond > 0, `${row.name} completed work`);
  }
  assert.is(report.follow.followers, 20);
  assert.ok(report.follow.objectsPerEvent >= 1);
  assert.equal(
    report.rehydrate?.runs.map((run) => [run.mode, run.actors]),
    [
      ['scan', 200],
      ['actors', 200],
      ['host', 200],
    ],
  );
  const host = report.rehydrate!.runs[2]!;
  assert.ok(host.settledMs !== null && host.recordsRewritten !== null && host.heapAfterMb > 0 && host.rssAfterMb > 0);
});

test('the session event reader checks seqs across chunk boundaries and skips heartbeats', () => {
  const seen: number[] = [];
  const reader = new SessionEventReader((event) => seen.push(event.seq));
  reader.push(
    Buffer.from(': session s\n\nid: 1\nevent: created\ndata: {"seq":1,"type":"created","ts":5,"data":{}}\n\nid: 2\nev'),
    1,
  );
  reader.push(Buffer.from('ent: phase\ndata: {"seq":2,"type":"phase","ts":6,"data":{}}\n\n: heartbeat\n\n'), 2);
  reader.push(
    Buffer.from('data: {"seq":2,"type":"phase","ts":6,"data":{}}\n\ndata: {"seq":4,"type":"x","ts":7,"data":{}}\n\n'),
    3,
  );
  assert.equal(seen, [1, 2, 4]);
  assert.ok(reader.finish());
  assert.equal(
    { ...reader.check, firstProblem: null },
    { events: 3, firstSeq: 1, lastSeq: 4, gaps: 1, duplicates: 1, outOfOrder: 0, bad: 0, firstProblem: null },
  );
  assert.is(reader.check.firstProblem, 'duplicate seq 2');
});

test('the upload scenario stores the file with the source sha256 and reports both baselines', async () => {
  const report = await runUploadBench({ bytes: 20 * 1024 * 1024 + 5, concurrency: 2, target: null });
  assert.equal(
    report.rows.map((row) => row.name),
    ['svc gateway', 'bare uWS sink', 'fsynced file writes'],
  );
  const [ours, sink] = report.rows;
  assert.is(ours!.parts, 3);
  assert.is(ours!.sha256Matches, true);
  assert.ok(ours!.mibPerSecond > 0 && ours!.completeMs !== null && ours!.server !== null && ours!.server.rssMbMax > 0);
  assert.ok(sink!.mibPerSecond > 0 && sink!.parts === 3);
  assert.ok(formatUpload(report).includes('| svc gateway |'));
});

test('the search scenario indexes a tiny corpus and answers every query, with the scan baseline', async () => {
  const result = await benchSearch({ files: 200, queries: 50 });
  assert.is(result.files, 200);
  assert.ok(result.indexMs > 0 && result.qps > 0 && result.p99Ms >= result.p50Ms);
  assert.is(result.scan.queries, 50);
  assert.ok(result.scan.qps > 0);
  assert.ok(formatSearch({ scenario: 'search', ...result }).includes('index ÷ scan'));
});

test('the realtime-idle scenario opens, holds and pings every call on the gateway and the bare baseline', async () => {
  const calls = 12;
  const report = await runRealtimeIdle({
    calls,
    holdMs: 300,
    concurrency: 4,
    callTimeoutMs: 10_000,
    pingTimeoutMs: 10_000,
    clientThreads: 1,
    inProcess: false,
    target: null,
  });
  assert.equal(
    report.rows.map((row) => row.name),
    ['svc gateway', 'bare uWS WebSocket'],
  );
  for (const row of report.rows) {
    assert.equal(row.errors, {}, `${row.name}: no errors (${JSON.stringify(row.errorSamples)})`);
    assert.is(row.opened, calls, `${row.name}: every call opened`);
    assert.is(row.connectMs.count, calls, `${row.name}: one connect time per call`);
    assert.is(row.answered, calls, `${row.name}: every call answered its session.update`);
    assert.ok(
      row.server && row.server.rssMbBefore > 0 && row.server.rssMbHeldMax > 0,
      `${row.name}: server memory was read`,
    );
  }
  assert.is(report.rows[0]!.ticketMs?.count, calls, 'each gateway call got its own ticket');
  assert.is(report.rows[1]!.ticketMs, null, 'the baseline needs no ticket');
  assert.ok(formatIdle(report).includes('< 1 GiB'));
});

test('the realtime-active scenario hears, answers and times live turns on the gateway; the baseline streams timed frames', async () => {
  const report = await runRealtimeActive({
    calls: 3,
    durationMs: 3000,
    rampMs: 0,
    concurrency: 3,
    callTimeoutMs: 10_000,
    clientThreads: 1,
    inProcess: false,
    target: null,
  });
  assert.equal(
    report.rows.map((row) => row.name),
    ['svc gateway', 'bare uWS WebSocket audio'],
  );
  const [ours, bare] = report.rows;
  for (const row of report.rows) {
    assert.equal(row.errors, {}, `${row.name}: no errors (${JSON.stringify(row.errorSamples)})`);
    assert.is(row.configured, 3, `${row.name}: every call took the session.update`);
    assert.ok(row.framesInPerSecond > 0 && row.framesOutPerSecond > 0, `${row.name}: audio went both ways`);
    assert.ok(
      row.relayMs.count > 0 && row.relayMs.p50 <= row.relayMs.p99 && row.relayMs.p99 <= row.relayMs.max,
      `${row.name}: frames were timed against svc_ts`,
    );
    assert.is(row.droppedFrames, 0, `${row.name}: no frame was dropped`);
    assert.ok(row.server && row.server.rssMbMax > 0, `${row.name}: server was sampled`);
  }
  assert.ok(
    ours!.turns.speechStopped >= 1 && ours!.turns.transcribed >= 1,
    `the gateway heard and transcribed a turn: ${JSON.stringify(ours!.turns)}`,
  );
  assert.ok(
    ours!.turnAfterStopMs.count >= 1 && ours!.turnAfterSpeechMs.count >= 1,
    'a turn was timed to its first answer audio',
  );
  assert.is(bare!.turns.speechStopped, 0, 'the baseline only streams');
  assert.ok(formatActive(report).includes('output frame relay p99'));
});

test.run();
