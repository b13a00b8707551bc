import { Readable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ffmpegPaths, ffmpegToBuffer, ffprobe, FfmpegError, runFfmpeg } from '../backends/ffmpeg/ffmpeg.js';

const test = suite('ffmpeg runner: encodes from a stream, probes, and fails clearly');
const available = ffmpegPaths() !== null;

/** One second of a 440 Hz tone, 16-bit mono PCM at 24 kHz. */
function tone(): Buffer {
  const pcm = Buffer.alloc(24_000 * 2);
  for (let i = 0; i < 24_000; i++)
    pcm.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / 24_000) * 12_000), i * 2);
  return pcm;
}

test('PCM piped in comes out as MP3 that ffprobe reads back with its duration', async () => {
  if (!available) return console.log('  (skipped: ffmpeg is not installed)');
  function* chunks() {
    const pcm = tone();
    for (let at = 0; at < pcm.length; at += 4096) yield pcm.subarray(at, at + 4096);
  }
  const mp3 = await ffmpegToBuffer(['-f', 's16le', '-ar', '24000', '-ac', '1', '-i', 'pipe:0', '-f', 'mp3', 'pipe:1'], {
    input: Readable.from(chunks()),
  });
  const probe = await ffprobe(mp3);
  assert.is(probe.streams[0]?.codecName, 'mp3');
  assert.ok(Math.abs((probe.durationSeconds ?? 0) - 1) < 0.1, `duration ${probe.durationSeconds}`);
});

test('input that does not decode is a FfmpegError of kind failed, from ffmpeg and ffprobe', async () => {
  if (!available) return console.log('  (skipped: ffmpeg is not installed)');
  const junk = Buffer.from('this is not audio at all');
  const encoded = await ffmpegToBuffer(['-i', 'pipe:0', '-f', 'wav', 'pipe:1'], { input: junk }).then(
    () => null,
    (err: unknown) => err,
  );
  assert.instance(encoded, FfmpegError);
  assert.is((encoded as FfmpegError).kind, 'failed');
  const probed = await ffprobe(junk).then(
    () => null,
    (err: unknown) => err,
  );
  assert.instance(probed, FfmpegError);
});

test('aborting stops ffmpeg', async () => {
  if (!available) return console.log('  (skipped: ffmpeg is not installed)');
  const controller = new AbortController();
  let chunks = 0;
  const run = (async () => {
    for await (const chunk of runFfmpeg(
      ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=600', '-f', 's16le', 'pipe:1'],
      { signal: controller.signal },
    )) {
      chunks += chunk.length > 0 ? 1 : 0;
      if (chunks === 2) controller.abort();
    }
  })();
  const outcome = await run.then(
    () => 'finished',
    () => 'aborted',
  );
  assert.is(outcome, 'aborted');
});

test.run();
