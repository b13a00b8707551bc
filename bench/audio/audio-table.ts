import type { AudioReport, AudioRow } from './audio-bench.js';

const cell = (row: AudioRow) => {
  if (row.figure === 'speech')
    return `first byte p50 ${row.firstByteMs!.p50} ms, p99 ${row.firstByteMs!.p99} ms; RTF ${row.realTimeFactor}`;
  if (row.figure === 'transcription') return `RTF ${row.realTimeFactor}`;
  return `${row.perSecond} transcriptions/s`;
};

/** What ours adds over the baseline on the same figure. */
function versus(ours: AudioRow, base: AudioRow | undefined): string {
  if (!base) return '';
  if (ours.figure === 'speech') {
    const added = ours.firstByteMs!.p50 - base.firstByteMs!.p50;
    return `${added >= 0 ? '+' : '−'}${Math.abs(added).toFixed(1)} ms to first byte; RTF ×${(ours.realTimeFactor! / Math.max(base.realTimeFactor!, 1e-6)).toFixed(2)}`;
  }
  if (ours.figure === 'transcription')
    return `RTF ×${(ours.realTimeFactor! / Math.max(base.realTimeFactor!, 1e-6)).toFixed(2)}`;
  return `${Math.round((100 * ours.perSecond!) / Math.max(base.perSecond!, 1e-6))} % of the baseline`;
}

/** The audio figures as a markdown table, each beside its same-run baseline. */
export function formatAudio(report: AudioReport): string {
  const lines = [
    `### audio (${report.requests} sequential requests per figure; ${report.concurrency} concurrent transcriptions for ${report.durationMs / 1000} s)`,
    '',
    'RTF = wall time ÷ audio time (under 1 is faster than real time).',
    '',
    '| engine | figure | target | result | vs baseline | errors |',
    '|---|---|---|---:|---|---:|',
  ];
  for (const row of report.rows) {
    const base =
      row.role === 'ours'
        ? report.rows.find(
            (other) => other.role === 'baseline' && other.engine === row.engine && other.figure === row.figure,
          )
        : undefined;
    lines.push(
      `| ${row.engine} | ${row.figure} (${row.audioSeconds} s of audio) | ${row.name} | ${cell(row)} | ${row.role === 'baseline' ? '(baseline)' : versus(row, base)} | ${row.errors} |`,
    );
  }
  return lines.join('\n');
}
