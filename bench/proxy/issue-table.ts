// Issue 28's table from one proxy run: throughput against the other gateway, CPU per request as the
// bench and as wrk outside measured it, the added p99 at one connection against the disk's floor,
// and the gateway's RSS, each beside its target.
import type { ProxyReport } from './proxy-scenario.js';

const fmt = (n: number, digits = 2) => n.toLocaleString('en-US', { maximumFractionDigits: digits });
const verdict = (met: boolean | null) => (met === null ? '' : met ? ' (met)' : ' (missed)');

/** The issue's table as Markdown rows (empty when the run has none of its figures). */
export function formatIssueTable(report: ProxyReport): string[] {
  const conns = report.settings.connections;
  const ours = (mode: 'json' | 'sse', connections = conns) =>
    report.cases.find((c) => c.wire === 'chat' && c.mode === mode && c.connections === connections);
  // Chat's interleaved rounds (warm, beside the other gateway and wrk) when the run has them; else its first row.
  const warm = (mode: 'json' | 'sse') => {
    const chat = report.wireFormats?.find((w) => w.route === '/v1/chat/completions' && w.mode === mode);
    const first = ours(mode);
    return chat
      ? {
          rps: chat.gateway.requestsPerSecond,
          cpu: chat.gatewayCpuMsPerRequest,
          how: `median of ${report.wireRounds} interleaved rounds`,
        }
      : first && { rps: first.gateway.requestsPerSecond, cpu: first.gatewayCpuMsPerRequest, how: 'one row' };
  };
  const other = report.otherGateway;
  const ratioRow = (mode: 'json' | 'sse', target: number, label: string) => {
    const mine = warm(mode);
    if (!other || 'skipped' in other) return `| ${label} | – (${other?.skipped ?? 'not run'}) | ≥ ${target}× |`;
    const theirs = other.cases.find((c) => c.mode === mode);
    if (!mine || !theirs || theirs.gateway.requestsPerSecond === 0) return `| ${label} | – | ≥ ${target}× |`;
    const ratio = mine.rps / theirs.gateway.requestsPerSecond;
    const cpu = theirs.cpuMsPerRequest === null ? '' : `, its CPU ${theirs.cpuMsPerRequest} ms / request`;
    const errors = Object.keys(theirs.gateway.errors).length
      ? `, its errors ${JSON.stringify(theirs.gateway.errors)}`
      : '';
    return `| ${label} | ${fmt(ratio)}× (${fmt(mine.rps, 0)} ÷ ${fmt(theirs.gateway.requestsPerSecond, 0)} req/s${cpu}${errors}) | ≥ ${target}×${verdict(ratio >= target)} |`;
  };
  const json = warm('json');
  const bench = json?.cpu ?? null;
  const outside = report.outside;
  const cpuRow =
    bench === null
      ? '| gateway CPU per non-streaming request | – | ≤ 0.15 ms |'
      : `| gateway CPU per non-streaming request (${conns} conn., the bench's client, ${json?.how}) | ${bench} ms | ≤ 0.15 ms${verdict(bench <= 0.15)} |`;
  const outsideRow = !outside
    ? '| the same from outside (wrk, CPU from /proc) | – (not run) | within 20 % of the bench |'
    : 'skipped' in outside
      ? `| the same from outside (wrk, CPU from /proc) | – (${outside.skipped}) | within 20 % of the bench |`
      : `| the same from outside (wrk, CPU from /proc, median of ${outside.rounds.length} rounds interleaved with the bench's, ${fmt(outside.requests, 0)} requests${outside.non2xx ? `, ${outside.non2xx} non-2xx` : ''}) | ${outside.cpuMsPerRequest} ms (${outside.rounds.join(', ')}; ÷ bench ${bench ? fmt(outside.cpuMsPerRequest / bench, 3) : '–'}) | within 20 % of the bench${bench ? verdict(Math.abs(outside.cpuMsPerRequest / bench - 1) <= 0.2) : ''} |`;
  const one = ours('json', 1);
  const floor = report.diskFloor;
  const added99 = one ? one.gateway.latencyMs.p99 - one.direct.latencyMs.p99 : null;
  const tailRow =
    added99 === null || !floor
      ? '| added p99 at 1 connection | – | ≤ the disk floor p99 + 0.5 ms |'
      : `| added p99 at 1 connection (disk floor: ${floor.commits} durable LMDB commits, p50 / p99 ${floor.p50Ms} / ${floor.p99Ms} ms) | ${fmt(added99, 3)} ms | ≤ ${fmt(floor.p99Ms + 0.5, 3)} ms${verdict(added99 <= floor.p99Ms + 0.5)} |`;
  const settle = report.settleFloor;
  const settleRow =
    added99 === null || !settle
      ? []
      : [
          `| the same beside the settle's own durable commit (${settle.commits} hold → settle in a row, p50 / p99 ${settle.p50Ms} / ${settle.p99Ms} ms; informative) | ${fmt(added99 - settle.p99Ms, 3)} ms over its p99 | – |`,
        ];
  const rss = Math.max(...report.cases.map((c) => c.gateway.server?.rssMbMax ?? 0));
  return [
    `| issue 28's figure (one run) | measured | target |`,
    '|---|---|---|',
    ratioRow('json', 5, `non-streaming, ${conns} connections, throughput ÷ the other gateway's`),
    cpuRow,
    outsideRow,
    tailRow,
    ...settleRow,
    ratioRow('sse', 4, `streaming (20 chunks), ${conns} connections, throughput ÷ the other gateway's`),
    `| gateway RSS, max over the run | ${rss ? `${fmt(rss, 0)} MiB` : '–'} | ≤ 250 MiB${rss ? verdict(rss <= 250) : ''} |`,
    '',
  ];
}
