import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readImageHeader } from '../backends/image-header.js';
import { createSimImageAnalysisBackend } from '../backends/sim/sim-image-analysis.js';
import { createSimTranscriptionBackend } from '../backends/sim/sim-transcription.js';
import { createSimVideoAnalysisBackend } from '../backends/sim/sim-video-analysis.js';
import { UnreadableMediaError } from '../backends/unreadable-media-error.js';
import { readVideoHeader } from '../backends/video-header.js';
import { readWavHeader } from '../backends/wav-header.js';
import { avi, gif, jpeg, mp4, pcm16, png, wav, webm, webp } from './media-fixtures.js';

const test = suite('sim media backends: headers read right, same bytes give the same text');
const signal = new AbortController().signal;
const images = createSimImageAnalysisBackend();
const transcription = createSimTranscriptionBackend();
const video = createSimVideoAnalysisBackend();

async function rejectsUnreadable(promise: Promise<unknown>): Promise<void> {
  try {
    await promise;
  } catch (err) {
    assert.instance(err, UnreadableMediaError);
    return;
  }
  assert.unreachable('expected UnreadableMediaError');
}

test('image headers give format and size for PNG, JPEG (baseline and progressive), GIF and the three WebP encodings', () => {
  const cases: [Buffer, string, number, number][] = [
    [png(640, 480), 'png', 640, 480],
    [jpeg(800, 600), 'jpeg', 800, 600],
    [jpeg(1, 65535, 0xc2), 'jpeg', 1, 65535],
    [gif(32, 16), 'gif', 32, 16],
    [webp(300, 200, 'VP8X'), 'webp', 300, 200],
    [webp(301, 201, 'VP8'), 'webp', 301, 201],
    [webp(16384, 3, 'VP8L'), 'webp', 16384, 3],
  ];
  for (const [bytes, format, width, height] of cases) {
    assert.equal(
      readImageHeader(bytes),
      { format, mediaType: `image/${format}`, width, height },
      `${format} ${width}×${height}`,
    );
  }
});

test('bytes that are no image have no image header', () => {
  for (const bytes of [
    Buffer.from('hello, world: not an image at all'),
    Buffer.alloc(0),
    png(4, 4).subarray(0, 20),
    gif(0, 10),
    Buffer.from([0xff, 0xd8, 0xff, 0xda, 0, 2]),
  ]) {
    assert.is(readImageHeader(bytes), null);
  }
});

test('the sim image analyser is deterministic and reports the header facts', async () => {
  const a = await images.analyse({ image: png(640, 480), detail: 'auto', signal });
  const b = await images.analyse({ image: png(640, 480), detail: 'high', signal });
  assert.equal(a, b);
  assert.is(a.format, 'png');
  assert.is(a.width, 640);
  assert.is(a.height, 480);
  assert.ok(a.description.startsWith('landscape picture'), a.description);
  const descriptions = new Set<string>();
  for (let shade = 0; shade < 8; shade++)
    descriptions.add((await images.analyse({ image: png(8, 8, shade), detail: 'auto', signal })).description);
  assert.ok(descriptions.size > 1, 'different images read differently');
});

test('the sim image analyser refuses bytes that are no recognised image', async () => {
  await rejectsUnreadable(images.analyse({ image: Buffer.from('%PDF-1.7 not an image'), detail: 'auto', signal }));
});

test('WAV headers give the format and the data length', () => {
  const header = readWavHeader(wav(1.5, 16_000));
  assert.is(header?.sampleRate, 16_000);
  assert.is(header?.channels, 1);
  assert.is(header?.bitsPerSample, 16);
  assert.is(header?.dataBytes, 48_000);
  assert.is(readWavHeader(Buffer.from('RIFF\0\0\0\0WAVEdata\0\0\0\0')), null, 'data before fmt');
});

test('sim transcripts take their duration from the WAV header, PCM length or MP3 size', async () => {
  const fromWav = await transcription.transcribe({ audio: wav(2, 16_000), format: 'wav', signal });
  assert.is(fromWav.durationSeconds, 2);
  assert.is(fromWav.text.split(' ').length, 5, '2.5 words per second');
  assert.match(fromWav.text, /^[A-Z].*\.$/);
  const fromPcm = await transcription.transcribe({ audio: pcm16(1, 24_000), format: 'pcm16', signal });
  assert.is(fromPcm.durationSeconds, 1);
  const mp3 = Buffer.concat([Buffer.from('ID3'), Buffer.alloc(32_000 - 3, 0x55)]);
  assert.is((await transcription.transcribe({ audio: mp3, format: 'mp3', signal })).durationSeconds, 2);
});

test('sim transcripts are deterministic per audio and differ between audios', async () => {
  const a = await transcription.transcribe({ audio: wav(4, 16_000, 440), format: 'wav', signal });
  const b = await transcription.transcribe({ audio: wav(4, 16_000, 440), format: 'wav', signal });
  const c = await transcription.transcribe({ audio: wav(4, 16_000, 660), format: 'wav', signal });
  assert.equal(a, b);
  assert.is.not(a.text, c.text);
});

test('silence-length audio transcribes to no words', async () => {
  const none = await transcription.transcribe({ audio: pcm16(0.1), format: 'pcm16', signal });
  assert.is(none.text, '');
});

test('the sim transcriber refuses a broken WAV and a file that is no MP3', async () => {
  await rejectsUnreadable(
    transcription.transcribe({ audio: Buffer.from('not a wav file at all'), format: 'wav', signal }),
  );
  await rejectsUnreadable(
    transcription.transcribe({ audio: Buffer.from('plain text pretending'), format: 'mp3', signal }),
  );
});

test('video headers give container, size and duration (MP4, AVI) or only the container (WebM)', async () => {
  assert.equal(await readVideoHeader(mp4(1280, 720, 12.5)), {
    container: 'mp4',
    mediaType: 'video/mp4',
    width: 1280,
    height: 720,
    durationSeconds: 12.5,
  });
  assert.equal(await readVideoHeader(avi(320, 240, 100, 25)), {
    container: 'avi',
    mediaType: 'video/x-msvideo',
    width: 320,
    height: 240,
    durationSeconds: 4,
  });
  assert.equal(await readVideoHeader(webm(1000)), {
    container: 'webm',
    mediaType: 'video/webm',
    width: null,
    height: null,
    durationSeconds: null,
  });
  assert.is(await readVideoHeader(png(4, 4)), null);
});

test('the sim video analyser describes up to 8 frames and a transcript, deterministically', async () => {
  const a = await video.analyse({ video: mp4(640, 360, 6), signal });
  const b = await video.analyse({ video: mp4(640, 360, 6), signal });
  assert.equal(a, b);
  assert.is(a.durationSeconds, 6);
  assert.is(a.durationEstimated, false);
  assert.equal(
    a.frames.map((frame) => frame.atSeconds),
    [0, 2, 4],
  );
  assert.is(a.transcript.split(' ').length, 15);
  const long = await video.analyse({ video: mp4(640, 360, 600), signal });
  assert.is(long.frames.length, 8);
  assert.is(long.transcript.split(' ').length, 60);
});

test('a video without a declared duration is estimated from its size at 1 Mbit/s', async () => {
  const analysis = await video.analyse({ video: webm(250_000), signal });
  assert.is(analysis.durationSeconds, 2);
  assert.is(analysis.durationEstimated, true);
});

test('the sim video analyser refuses bytes that are no recognised video', async () => {
  await rejectsUnreadable(video.analyse({ video: Buffer.from('this is a text file, not a video'), signal }));
});

test('an aborted request is refused before any analysis', async () => {
  const aborted = AbortSignal.abort();
  for (const promise of [
    images.analyse({ image: png(2, 2), detail: 'auto', signal: aborted }),
    transcription.transcribe({ audio: wav(1), format: 'wav', signal: aborted }),
    video.analyse({ video: mp4(2, 2, 1), signal: aborted }),
  ]) {
    try {
      await promise;
      assert.unreachable('expected an abort');
    } catch (err) {
      assert.is((err as Error).name, 'AbortError');
    }
  }
});

test.run();
