// Markdown tables of the host benchmarks: throughput figures beside their baselines, then rehydration.
import type { HostFigure } from './measure.js';
import type { RehydrateRun } from './rehydrate-main.js';
import type { HostReport } from './run-host.js';

const int = (value: number) => Math.round(value).toLocaleString('en-US');
const us = (value: number | null) => (value === null ? '–' : value >= 100 ? int(value) : value.toFixed(1));

/** `ours ÷ baseline` for each baseline this row is compared with. */
function versus(row: HostFigure, figures: HostFigure[]): string {
  if (row.baseline) return '(baseline)';
  const baselines = figures.filter(
    (b) => b.baseline && b.group === row.group && (b.everyRow || b.concurrency === row.concurrency),
  );
  return baselines
    .filter((b) => b.perSecond > 0)
    .map((b) => {
      const ratio = row.perSecond / b.perSecond;
      return `${ratio >= 0.1 ? `${Math.round(ratio * 100)} %` : `${(ratio * 100).toFixed(1)} %`} of ${b.short ?? 'baseline'}`;
    })
    .join(' · ');
}

function figureTable(figures: HostFigure[]): string[] {
  const lines = [
    '| group | benchmark | loops | per second | unit | p50 µs | p99 µs | ours ÷ baseline |',
    '|---|---|---:|---:|---|---:|---:|---|',
  ];
  for (const f of figures) {
    lines.push(
      `| ${f.group} | ${f.name} | ${int(f.concurrency)} | ${int(f.perSecond)} | ${f.unit} | ${us(f.p50Us)} | ${us(f.p99Us)} | ${versus(f, figures)} |`,
    );
  }
  return lines;
}

const RUN_NAMES: Record<RehydrateRun['mode'], string> = {
  host: 'host.rehydrate() (unfinished index read; sessions awaiting approval stay parked with deadlines armed, rehydrated on first touch)',
  actors: 'baseline: createActor({snapshot}).start() for each record, no host',
  scan: 'baseline: read and decode every record, no actor',
};

function perActorKb(before: number, after: number, actors: number): string {
  return actors ? (((after - before) * 1024) / actors).toFixed(1) : '–';
}

function rehydrateTable(report: HostReport): string[] {
  const r = report.rehydrate;
  if (!r) return [];
  const lines = [
    '',
    `rehydration of ${int(r.sessions)} parked sessions (awaiting_approval, written through host.spawn: ${int(r.write.perSecond)}/s, ${r.write.seconds} s; ${int(r.dataMb)} MB of LMDB data), each run in a fresh process:`,
    '',
    '| run | actors | seconds | actors/s | until writes settled s | heap MB before → after | heap KB per actor | RSS MB before → after | RSS KB per actor | records rewritten |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const run of r.runs) {
    const seconds = run.ms / 1000;
    lines.push(
      `| ${RUN_NAMES[run.mode]} | ${int(run.actors)} | ${seconds.toFixed(2)} | ${int(run.actors / Math.max(seconds, 0.001))} | ${run.settledMs === null ? '–' : (run.settledMs / 1000).toFixed(2)} | ` +
        `${run.heapBeforeMb} → ${run.heapAfterMb} | ${perActorKb(run.heapBeforeMb, run.heapAfterMb, run.actors)} | ${run.rssBeforeMb} → ${run.rssAfterMb} | ${perActorKb(run.rssBeforeMb, run.rssAfterMb, run.actors)} | ${run.recordsRewritten === null ? '–' : int(run.recordsRewritten)} |`,
    );
  }
  return lines;
}

/** The host benchmarks as Markdown. */
export function formatHost(report: HostReport): string {
  const s = report.settings;
  const lines = [
    `### host: the durable actor host in-process, real LMDB in a temporary directory, ${s.timeMs} ms per figure`,
    '',
    ...figureTable(report.figures.filter((f) => f.group !== 'rehydration')),
    '',
    `in-process followers: the ${int(report.follow.followers)} followers got ${int(report.follow.objectsPerEvent)} distinct event object(s) for one event (1 = one log read shared by all)`,
    ...rehydrateTable(report),
  ];
  return lines.join('\n');
}
