// The cluster scenario's report as Markdown tables: one node without and with cluster mode,
// cross-node delivery, and takeover after a SIGKILL.
import { cpus } from 'node:os';
import type { ClusterLoadRow, ClusterReport, OneNodeFigure } from './cluster-scenario.js';
import type { LatencySummary } from '../load/histogram.js';

const ms = (value: number | null) =>
  value === null ? '–' : value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
const num = (value: number) => (value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toFixed(1));
const times = (value: number) => `×${value.toFixed(2)}`;
const errorCount = (row: ClusterLoadRow) => Object.values(row.errors).reduce((a, b) => a + b, 0);
const cpu = (row: ClusterLoadRow) =>
  `${row.gatewayCpuPercent ?? '–'}${row.natsCpuPercent === null ? '' : ` + nats ${row.natsCpuPercent}`}`;

function oneNodeRows(label: string, unit: string, figure: OneNodeFigure): string[] {
  const { single, cluster, ratio } = figure;
  return [
    `| ${label} ${unit} | ${num(single.perSecond)} | ${num(cluster.perSecond)} | ${times(ratio.perSecond)} |`,
    `| ${label} p50 ms | ${ms(single.latencyMs.p50)} | ${ms(cluster.latencyMs.p50)} | ${times(ratio.p50)} |`,
    `| ${label} p99 ms | ${ms(single.latencyMs.p99)} | ${ms(cluster.latencyMs.p99)} | ${times(ratio.p99)} |`,
    `| ${label} errors | ${errorCount(single)} | ${errorCount(cluster)} | |`,
    `| ${label}: server CPU % | ${cpu(single)} | ${cpu(cluster)} | |`,
  ];
}

function latencyRow(name: string, summary: LatencySummary): string {
  return `| ${name} | ${summary.count} | ${ms(summary.p50)} | ${ms(summary.p90)} | ${ms(summary.p99)} | ${ms(summary.max)} |`;
}

function errorLines(report: ClusterReport): string[] {
  const lines: string[] = [];
  for (const [name, figure] of [
    ['chat', report.oneNode.chat],
    ['sessions', report.oneNode.sessions],
  ] as const) {
    for (const [mode, row] of [
      ['single', figure.single],
      ['cluster', figure.cluster],
    ] as const) {
      for (const [kind, count] of Object.entries(row.errors))
        lines.push(`- ${name}, ${mode}: ${count} × ${kind}: ${row.errorSamples[kind] ?? ''}`);
    }
  }
  for (const error of report.crossNode.errors) lines.push(`- cross-node: ${error}`);
  for (const [i, run] of report.takeover.runs.entries()) if (run.error) lines.push(`- takeover ${i + 1}: ${run.error}`);
  return lines.length ? ['', 'errors:', ...lines] : [];
}

/** The report as Markdown. */
export function formatCluster(report: ClusterReport): string {
  const s = report.settings;
  const c = report.crossNode;
  const t = report.takeover;
  return [
    `### cluster: cluster mode's cost and behaviour (load average ${report.loadAverage.start} → ${report.loadAverage.end}, ${cpus().length} cores)`,
    '',
    `One node: chat completions (\`max_tokens: 16\`, closed loop) and sessions (created, then followed to \`completed\`), ${s.connections} connections, ${s.durationS} s each after ${s.warmupS} s warm-up; single node (no NATS) vs the same server in cluster mode over one local nats-server (JetStream R1).`,
    '',
    '| figure | single node | cluster node (R1) | cluster ÷ single |',
    '|---|---:|---:|---:|',
    ...oneNodeRows('chat', 'req/s', report.oneNode.chat),
    ...oneNodeRows('sessions', 'sessions/s', report.oneNode.sessions),
    '',
    `Cross-node delivery (3 nats-servers, R3; 3 nodes): ${c.sessions} sessions of an account homed on node 1 (${c.homeOnNode1 ? 'checked in the cluster view' : 'home not confirmed in the cluster view'}), ${c.lanes} at a time, each followed on node 1 and on node 2 at once; latency = receive − the event's \`ts\`, live events only (after approval).`,
    '',
    '| follower | events | p50 ms | p90 ms | p99 ms | max ms |',
    '|---|---:|---:|---:|---:|---:|',
    latencyRow('node 1 (home, direct)', c.direct),
    latencyRow('node 2 (forwarded to node 1)', c.forwarded),
    latencyRow('node 2 − node 1, same event', c.added),
    '',
    `forwarded ÷ direct: p50 ${times(c.ratio.p50)}, p99 ${times(c.ratio.p99)}; events seen by one follower only: ${c.unmatched}; events node 2's follower had first: ${c.forwardedFirst} (counted as 0 in the difference row)`,
    '',
    `Takeover: a session on node 1 (sim 25 tokens/s, \`max_tokens: 80\`) followed on node 2; node 1 killed with SIGKILL once drafting; lease \`SVC_CLUSTER_LEASE_MS=${t.leaseMs}\`; node 1 restarted (same id and data directory) between repeats.`,
    '',
    '| run | SIGKILL → next event on node 2 ms | next event | SIGKILL → node 1 down ms | SIGKILL → session listed under | final state | gap-free | reconnects |',
    '|---|---:|---|---:|---|---|---|---:|',
    ...t.runs.map(
      (run, i) =>
        `| ${i + 1} | ${ms(run.nextEventMs)} | ${run.nextEventType ?? '–'} | ${ms(run.downMs)} | ${run.movedMs === null ? '–' : `${run.movedTo} at ${ms(run.movedMs)} ms`} | ${run.finalState ?? '–'} | ${run.gapFree ? 'yes' : 'no'} | ${run.reconnects} |`,
    ),
    `| median | ${ms(t.median.nextEventMs)} | | ${ms(t.median.downMs)} | ${t.median.movedMs === null ? '–' : `${ms(t.median.movedMs)} ms`} | | | |`,
    '',
    `nodes of the 3-node cluster that exited fenced without being killed (at boot, then started again, or during the run): ${t.fencedExits}`,
    ...errorLines(report),
    '',
  ].join('\n');
}
