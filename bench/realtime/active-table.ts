// Markdown of realtime-active: frames in and out, output frame relay latency, turns, drops and
// errors per target, then the figures beside their targets.
import { cpuUsPerInputFrame, type ActiveReport, type ActiveRoundFigures, type ActiveRow } from './realtime-active.js';
import { clientCell, errorCell, errorLines, int, ms, p50p99 } from './table-cells.js';
import { INPUT_FRAME_MS } from './speech-loop.js';
import { isClientBound } from './thread-meter.js';

/** The design target for output frame relay latency at p99, ms. */
const TARGET_RELAY_P99_MS = 10;

function label(row: ActiveRow): string {
  return row.role === 'baseline' ? `${row.name} (baseline)` : row.name;
}

function turnsCell(row: ActiveRow): string {
  if (!row.turns.speechStopped && !row.turns.responsesCreated) return '–';
  const done = Object.entries(row.turns.responsesDone)
    .map(([status, n]) => `${status} ${int(n)}`)
    .join(', ');
  return `${int(row.utterances)} said / ${int(row.turns.speechStopped)} heard / ${int(row.turns.transcribed)} transcribed / ${int(row.turns.responsesCreated)} answered (${done || 'none done'})`;
}

function mainTable(report: ActiveReport): string[] {
  const lines = [
    '| target | calls | frames in/s | frames out/s | relay p50 ms | p90 | p99 | p99.9 | max | min | turns in the window | speech_stopped → first audio p50 / p99 ms | speech end → first audio p50 / p99 ms | dropped frames | errors | server CPU % | server RSS MB | client CPU % | send lag p99 ms |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---|---:|---:|---|---:|',
  ];
  for (const row of report.rows) {
    const r = row.relayMs;
    const server = row.server
      ? [`${row.server.cpuPercent}`, `${row.server.rssMbStart} → ${row.server.rssMbMax}`]
      : ['–', '–'];
    lines.push(
      `| ${label(row)} | ${int(row.configured)} / ${int(row.calls)} | ${int(row.framesInPerSecond)} | ${int(row.framesOutPerSecond)} | ${ms(r.p50)} | ${ms(r.p90)} | ${ms(r.p99)} | ${ms(r.p999)} | ${ms(r.max)} | ${row.relayMinMs === null ? '–' : ms(row.relayMinMs)} | ` +
        `${turnsCell(row)} | ${p50p99(row.turnAfterStopMs)} | ${p50p99(row.turnAfterSpeechMs)} | ${int(row.droppedFrames)} | ${errorCell(row.errors)} | ${server.join(' | ')} | ${clientCell(row.clients)} | ${ms(row.sendLagMs.p99)} |`,
    );
  }
  return lines;
}

/** A figure's median over the rounds, every round beside it, when more than one ran. */
function overRounds(row: ActiveRow, pick: (figures: ActiveRoundFigures) => number | null, unit: string): string {
  const values = row.rounds.map(pick);
  const known = values.filter((value): value is number => value !== null).sort((a, b) => a - b);
  if (!known.length) return '–';
  const median = known[Math.floor((known.length - 1) / 2)]!;
  const shown = (value: number | null) => (value === null ? '–' : ms(value));
  if (values.length < 2) return `${shown(median)}${unit}`;
  return `${shown(median)}${unit} (rounds: ${values.map(shown).join(', ')})`;
}

function figureLines(report: ActiveReport): string[] {
  const ours = report.rows.find((row) => row.role === 'ours');
  if (!ours) return [];
  const bare = report.rows.find((row) => row.role === 'baseline');
  const lines = ['', '| figure | measured | target |', '|---|---:|---|'];
  const p99 = ours.relayMs.p99;
  lines.push(
    `| output frame relay p99 (receipt − svc_ts) | ${ours.relayMs.count ? `${ms(p99)} ms` : 'no frames'} | < ${TARGET_RELAY_P99_MS} ms (${ours.relayMs.count && p99 < TARGET_RELAY_P99_MS ? 'met' : 'missed'}) |`,
  );
  if (bare?.relayMs.count) lines.push(`| added relay p99 (ours − bare) | ${ms(p99 - bare.relayMs.p99)} ms | – |`);
  lines.push(`| speech_stopped → first answer audio p50 / p99 | ${p50p99(ours.turnAfterStopMs)} ms | – |`);
  lines.push(
    `| input frames sent per second (calls × ${1000 / INPUT_FRAME_MS} due) | ${int(ours.framesInPerSecond)} of ${int((ours.configured * 1000) / INPUT_FRAME_MS)} | – |`,
  );
  lines.push(`| output frames dropped by the server (slow client) | ${int(ours.droppedFrames)} | 0 |`);
  const perFrame = cpuUsPerInputFrame(ours);
  lines.push(
    `| server CPU µs per input frame (all server CPU in the window ÷ frames in) | ${perFrame === null ? '–' : int(perFrame)} | ≤ 20 |`,
  );
  if (ours.rounds.length > 1) {
    lines.push(
      `| over ${ours.rounds.length} rounds: CPU µs per input frame, median | ${overRounds(ours, (f) => f.cpuUsPerInputFrame, '')} | ≤ 20 |`,
    );
    lines.push(
      `| over ${ours.rounds.length} rounds: relay p99, median | ${overRounds(ours, (f) => f.relayP99Ms, ' ms')} | < ${TARGET_RELAY_P99_MS} ms |`,
    );
    lines.push(
      `| over ${ours.rounds.length} rounds: speech_stopped → first audio p99, median | ${overRounds(ours, (f) => f.firstAudioP99Ms, ' ms')} | < 50 ms |`,
    );
    if (bare)
      lines.push(
        `| over ${bare.rounds.length} rounds: bare uWS relay p99, median | ${overRounds(bare, (f) => f.relayP99Ms, ' ms')} | – |`,
      );
  }
  if (ours.server && ours.configured > 0)
    lines.push(
      `| server CPU per call (% of one core) | ${(ours.server.cpuPercent / ours.configured).toFixed(3)} | – |`,
    );
  return lines;
}

function noteLines(report: ActiveReport): string[] {
  const notes: string[] = [];
  for (const row of report.rows) {
    if (row.relayMinMs !== null && row.relayMinMs < 0)
      notes.push(
        `- ${row.name}: the smallest receipt − svc_ts is ${ms(row.relayMinMs)} ms: the server's clock (timeOrigin + now) runs ahead of the client's by at least that, so its latencies read low by as much.`,
      );
    if (row.clients.some(isClientBound))
      notes.push(
        `- ${row.name}: the client thread was saturated: its pacing (send lag) and receipt times include its own queueing, so latencies read high.`,
      );
    notes.push(...errorLines(row.name, row.errors, row.errorSamples));
  }
  return notes.length ? ['', ...notes] : [];
}

/** The scenario as Markdown. */
export function formatActive(report: ActiveReport): string {
  const s = report.settings;
  const where = s.target ? `target ${s.target}` : s.inProcess ? 'servers in-process' : 'servers as child processes';
  const title =
    `### ${report.scenario}: ${int(s.calls)} live calls, each saying "${s.sentence}" (${(s.speechMs / 1000).toFixed(2)} s) then ${s.silenceMs} ms of silence in 20 ms appends at real time, ` +
    `answered at playback speed (barge-in off, max_output_tokens 5); ${s.durationMs / 1000} s measured after a ${(s.rampMs / 1000).toFixed(1)} s ramp, ${where}`;
  return [title, '', ...mainTable(report), ...figureLines(report), ...noteLines(report)].join('\n');
}
