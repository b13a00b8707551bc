// Keeps the audio benchmark from rotting: a tiny run on the sim engines must report every figure
// with its same-run baseline, without errors. No timing assertions: figures are only sane.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runAudioBench } from '../bench/audio/audio-bench.js';
import { formatAudio } from '../bench/audio/audio-table.js';

const test = suite('audio bench: speech first byte and RTF, transcription RTF and throughput, each with its baseline');

test('a tiny run reports every figure for the gateway and the direct baseline, with no errors', async () => {
  const report = await runAudioBench({
    requests: 2,
    concurrency: 2,
    durationMs: 600,
    inProcess: true,
    target: null,
    localEngines: false,
  });
  assert.is(report.scenario, 'audio');
  const keys = report.rows.map((row) => `${row.figure}/${row.role}`).sort();
  assert.equal(keys, [
    'concurrent transcription/baseline',
    'concurrent transcription/ours',
    'speech/baseline',
    'speech/ours',
    'transcription/baseline',
    'transcription/ours',
  ]);
  for (const row of report.rows) {
    assert.is(row.errors, 0, `${row.figure} ${row.role}`);
    assert.ok(row.audioSeconds > 1, 'seconds of real audio were measured');
    if (row.figure === 'speech')
      assert.ok(row.firstByteMs!.p50 > 0 && row.firstByteMs!.p50 <= row.firstByteMs!.p99 && row.realTimeFactor! > 0);
    if (row.figure === 'transcription') assert.ok(row.realTimeFactor! > 0);
    if (row.figure === 'concurrent transcription') assert.ok(row.perSecond! > 0);
  }
  const table = formatAudio(report);
  assert.match(table, /\| sim \| speech .*\| \+?−?\d+\.\d ms to first byte; RTF ×\d/);
  assert.match(table, /% of the baseline/);
});

test.run();
