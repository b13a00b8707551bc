// Keeps the cluster scenario (`npm run bench -- --scenario cluster`) from rotting: at tiny scale
// (1 s windows, 3 cross-node sessions, 1 takeover) it must produce a complete report and table.
// No timing assertions: figures are only checked to be measured and sane.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runClusterScenario, type ClusterLoadRow, type ClusterRatio } from '../bench/cluster/cluster-scenario.js';
import { formatCluster } from '../bench/cluster/cluster-table.js';
import type { LatencySummary } from '../bench/load/histogram.js';

const test = suite(
  'bench: the cluster scenario reports one node with and without cluster mode, cross-node delivery and takeover',
);

function saneLatency(name: string, summary: LatencySummary): void {
  assert.ok(summary.count > 0, `${name}: measured something`);
  assert.ok(
    summary.p50 > 0 && summary.p50 <= summary.p99 && summary.p99 <= summary.max,
    `${name}: percentiles are positive and ordered (${JSON.stringify(summary)})`,
  );
}

function saneRow(name: string, row: ClusterLoadRow): void {
  assert.ok(row.count > 0 && row.perSecond > 0, `${name}: completed work in the window (${row.count})`);
  assert.equal(row.errors, {}, `${name}: no errors (${JSON.stringify(row.errorSamples)})`);
  saneLatency(name, row.latencyMs);
  assert.ok(row.gatewayCpuPercent !== null && row.gatewayCpuPercent > 0, `${name}: the gateway was sampled`);
}

function saneRatio(name: string, ratio: ClusterRatio): void {
  for (const [figure, value] of Object.entries(ratio))
    assert.ok(Number.isFinite(value) && value > 0, `${name} ${figure} ratio is finite and positive: ${value}`);
}

test('a tiny run measures every figure', async () => {
  const steps: string[] = [];
  const report = await runClusterScenario({
    connections: 2,
    durationMs: 1000,
    warmupMs: 200,
    timeoutMs: 10_000,
    crossSessions: 3,
    crossLanes: 1,
    takeovers: 1,
    leaseMs: 1500,
    onStep: (text) => steps.push(text),
  });
  assert.is(report.scenario, 'cluster');
  assert.ok(
    steps.some((step) => step.includes('takeover 1 of 1')),
    'it reported its steps',
  );

  for (const [name, figure] of Object.entries(report.oneNode)) {
    saneRow(`${name} single`, figure.single);
    saneRow(`${name} cluster`, figure.cluster);
    assert.is(figure.single.natsCpuPercent, null, `${name}: no nats-server beside the single node`);
    assert.ok(figure.cluster.natsCpuPercent !== null, `${name}: the cluster node's nats-server was sampled`);
    saneRatio(name, figure.ratio);
  }

  const cross = report.crossNode;
  assert.is(cross.method, 'receive − event ts');
  assert.ok(cross.homeOnNode1, 'the sessions live on node 1');
  assert.equal(cross.errors, []);
  assert.ok(
    cross.events > 0 && cross.direct.count === cross.events && cross.forwarded.count === cross.events,
    `both followers measured the live events (${cross.events})`,
  );
  saneLatency('direct', cross.direct);
  saneLatency('forwarded', cross.forwarded);
  assert.is(cross.added.count, cross.events, 'every event was matched across the two followers');
  assert.ok(
    Number.isFinite(cross.ratio.p50) && cross.ratio.p50 > 0 && Number.isFinite(cross.ratio.p99) && cross.ratio.p99 > 0,
    `ratios are finite: ${JSON.stringify(cross.ratio)}`,
  );

  const takeover = report.takeover;
  assert.is(takeover.leaseMs, 1500);
  assert.is(takeover.runs.length, 1);
  const [run] = takeover.runs;
  assert.is(run!.error, null);
  assert.ok(
    run!.nextEventMs !== null && run!.nextEventMs > 0,
    `the next event after the kill was timed: ${JSON.stringify(run)}`,
  );
  assert.ok(run!.downMs !== null && run!.downMs > 0, 'node 1 was seen down');
  assert.is(run!.finalState, 'completed');
  assert.ok(run!.gapFree, 'the follower saw every event once across the kill');
  assert.is(takeover.median.nextEventMs, run!.nextEventMs);

  const table = formatCluster(report);
  for (const text of [
    '### cluster',
    '| chat req/s |',
    '| sessions sessions/s |',
    '| node 2 (forwarded to node 1) |',
    '| median |',
    'SVC_CLUSTER_LEASE_MS=1500',
  ])
    assert.ok(table.includes(text), `the table has ${text}`);
});

test.run();
