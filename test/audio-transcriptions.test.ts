import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { APIError, toFile } from 'openai';
import {
  TranscriptionDiarizedObjectSchema,
  TranscriptionObjectSchema,
  TranscriptionVerboseObjectSchema,
  TranscriptTextDeltaSchema,
  TranscriptTextDoneSchema,
} from '../protocols/audio-objects.js';
import { startServer, type TestAccount, type TestServer } from './harness.js';
import { assertWire } from './wire-check.js';
import {
  balanceOf,
  INPUT_CONTAINERS,
  inContainer,
  lastEntry,
  simVoicePcm,
  simVoiceWav,
  toneWav,
  usdDiff,
} from './audio-fixtures.js';
import { pcm16Samples, pcm16Wav } from '../backends/pcm16-samples.js';

const test = suite('audio transcriptions: multipart and JSON, every response format, SSE, billed by audio seconds');
let server: TestServer;
let account: TestAccount;

const TEXT = 'Meet me at the station at nine.';
const WAV = simVoiceWav(TEXT);
const SECONDS = (WAV.length - 44) / 48_000;

test.before(async () => {
  server = await startServer();
  account = await server.account(10);
});
test.after(async () => server.close());

const client = () => server.openai(account.token);

test('json (the default): the exact text, its duration as usage, and the svc block with the charge', async () => {
  const before = await balanceOf(server, account);
  const result = (await client().audio.transcriptions.create({
    file: await toFile(WAV, 'speech.wav'),
    model: 'pro-1',
  })) as unknown as Record<string, any>;
  const body = assertWire(TranscriptionObjectSchema, { status: 200, body: result }, 200, 'json');
  assert.is(body.text, TEXT);
  assert.equal(body.usage, { type: 'duration', seconds: Math.round(SECONDS * 1000) / 1000 });
  // The sim's 6,000 micro-USD per audio minute, to the millisecond, rounded up; 25 % on top.
  const cost = Math.ceil((Math.round(SECONDS * 1000) * 6000) / 60_000);
  assert.is(body.svc.our_cost_usd, cost / 1e6);
  assert.is(body.svc.price_usd, Math.ceil(cost * 1.25) / 1e6);
  assert.is(body.svc.billing.unit, 'audio_seconds');
  assert.is(usdDiff(before, await balanceOf(server, account)), body.svc.price_usd);
  assert.match((await lastEntry(server, account))!.description, /^transcription \(standard, sim\)/);
});

test('text, srt and vtt come back as text through the SDK, with the charge in X-Svc-Price-USD', async () => {
  const text = await client().audio.transcriptions.create({
    file: await toFile(WAV, 'a.wav'),
    model: 'pro-1',
    response_format: 'text',
  });
  assert.is(text, `${TEXT}\n`);
  const srt = await client().audio.transcriptions.create({
    file: await toFile(WAV, 'a.wav'),
    model: 'pro-1',
    response_format: 'srt',
  });
  assert.match(srt, /^1\n00:00:00,\d{3} --> 00:00:0\d,\d{3}\nMeet me at the station at nine\.\n$/);
  const vtt = await client().audio.transcriptions.create({
    file: await toFile(WAV, 'a.wav'),
    model: 'pro-1',
    response_format: 'vtt',
  });
  assert.match(vtt, /^WEBVTT\n\n00:00:00\.\d{3} --> 00:00:0\d\.\d{3}\nMeet me at the station at nine\.\n$/);
  const raw = await client()
    .audio.transcriptions.create({ file: await toFile(WAV, 'a.wav'), model: 'pro-1', response_format: 'vtt' })
    .asResponse();
  assert.match(raw.headers.get('content-type') ?? '', /^text\/vtt/);
  assert.match(raw.headers.get('x-svc-price-usd') ?? '', /^0\.\d{6}$/);
});

test('verbose_json: language, duration, segments with start and end; words when timestamp_granularities has word', async () => {
  const result = await client().audio.transcriptions.create({
    file: await toFile(WAV, 'a.wav'),
    model: 'pro-1',
    response_format: 'verbose_json',
    timestamp_granularities: ['word', 'segment'],
  });
  const body = assertWire(TranscriptionVerboseObjectSchema, { status: 200, body: result }, 200, 'verbose_json');
  assert.is(body.language, 'english');
  assert.is(body.text, TEXT);
  assert.is(body.segments?.length, 1);
  const segment = body.segments![0]!;
  assert.ok(Math.abs(segment.start - 0.2) < 0.02, `the speech starts after 0.2 s of silence, at ${segment.start}`);
  assert.ok(segment.end <= body.duration && segment.end > segment.start);
  assert.equal(
    body.words!.map((w) => w.word),
    ['Meet', 'me', 'at', 'the', 'station', 'at', 'nine'],
  );
  for (const [i, word] of body.words!.entries()) {
    assert.ok(word.end > word.start, `${word.word} has a length`);
    if (i > 0) assert.ok(word.start >= body.words![i - 1]!.end, 'words are in order');
  }
  const segmentsOnly = await client().audio.transcriptions.create({
    file: await toFile(WAV, 'a.wav'),
    model: 'pro-1',
    response_format: 'verbose_json',
  });
  assert.is((segmentsOnly as { words?: unknown }).words, undefined, 'no words unless asked for');
});

test('the language hint is echoed by name in verbose_json', async () => {
  const result = await client().audio.transcriptions.create({
    file: await toFile(WAV, 'a.wav'),
    model: 'pro-1',
    response_format: 'verbose_json',
    language: 'fr',
  });
  assert.is(result.language, 'french');
});

test('diarization labels each turn: two utterances apart are speakers A and B, in verbose_json, diarized_json, srt and vtt', async () => {
  const pause = Buffer.alloc(24_000); // 0.5 s
  const pcm = Buffer.concat([simVoicePcm('Are you coming?'), pause, simVoicePcm('Yes, in five minutes.')]);
  const wav = pcm16Wav(pcm16Samples(pcm), 24_000);
  const verbose = await client().audio.transcriptions.create({
    file: await toFile(wav, 'dialog.wav'),
    model: 'pro-1',
    response_format: 'verbose_json',
    diarization: true,
  } as never);
  const body = assertWire(TranscriptionVerboseObjectSchema, { status: 200, body: verbose }, 200, 'diarized verbose');
  assert.equal(
    body.segments!.map((s) => [s.speaker, s.text]),
    [
      ['A', 'Are you coming?'],
      ['B', 'Yes, in five minutes.'],
    ],
  );
  assert.ok(body.segments![1]!.start > body.segments![0]!.end + 0.4, 'the pause separates the turns');
  const diarized = await client().audio.transcriptions.create({
    file: await toFile(wav, 'dialog.wav'),
    model: 'pro-1',
    response_format: 'diarized_json' as never,
  });
  const shaped = assertWire(TranscriptionDiarizedObjectSchema, { status: 200, body: diarized }, 200, 'diarized_json');
  assert.equal(
    shaped.segments.map((s) => s.speaker),
    ['A', 'B'],
  );
  const srt = await client().audio.transcriptions.create({
    file: await toFile(wav, 'dialog.wav'),
    model: 'pro-1',
    response_format: 'srt',
    diarization: true,
  } as never);
  assert.match(srt as unknown as string, /1\n.*\nA: Are you coming\?\n\n2\n.*\nB: Yes, in five minutes\.\n/);
  const vtt = await client().audio.transcriptions.create({
    file: await toFile(wav, 'dialog.wav'),
    model: 'pro-1',
    response_format: 'vtt',
    diarization: true,
  } as never);
  assert.match(vtt as unknown as string, /<v A>Are you coming\?\n\n.*\n<v B>Yes, in five minutes\./);
  const plain = await client().audio.transcriptions.create({
    file: await toFile(wav, 'dialog.wav'),
    model: 'pro-1',
    response_format: 'verbose_json',
  });
  assert.is((plain.segments![0] as { speaker?: string }).speaker, undefined, 'no speakers unless asked for');
});

test('stream: true answers transcript.text.delta events and a final transcript.text.done with usage, read with for await', async () => {
  const stream = await client().audio.transcriptions.create({
    file: await toFile(WAV, 'a.wav'),
    model: 'pro-1',
    stream: true,
  });
  let text = '';
  const types: string[] = [];
  let done: Record<string, any> | null = null;
  for await (const event of stream) {
    types.push(event.type);
    if (event.type === 'transcript.text.delta') {
      assertWire(TranscriptTextDeltaSchema, { status: 200, body: event }, 200, 'delta');
      text += event.delta;
    } else if (event.type === 'transcript.text.done') done = event as never;
  }
  assert.ok(types.length > 2);
  assert.is(types.at(-1), 'transcript.text.done');
  assert.is(text, TEXT);
  const final = assertWire(TranscriptTextDoneSchema, { status: 200, body: done }, 200, 'done');
  assert.is(final.text, TEXT);
  assert.is(final.usage.type, 'duration');
  assert.ok(final.svc.price_usd > 0);
});

for (const container of Object.keys(INPUT_CONTAINERS)) {
  test(`a ${container} file decodes (ffmpeg) and the sim voice in it reads back exactly`, async () => {
    const file = inContainer(WAV, container);
    const result = await client().audio.transcriptions.create({
      file: await toFile(file, `speech.${container}`),
      model: 'pro-1',
    });
    assert.is(result.text, TEXT);
  });
}

test('the JSON alternative: file_data as base64 (or a data: URL), any response format', async () => {
  const res = await server.request('POST', '/v1/audio/transcriptions', {
    token: account.token,
    body: { file_data: WAV.toString('base64'), filename: 'a.wav' },
  });
  assert.is(res.status, 200);
  assert.is(res.body.text, TEXT);
  const url = await server.request('POST', '/v1/audio/transcriptions', {
    token: account.token,
    body: { file_data: `data:audio/wav;base64,${WAV.toString('base64')}`, response_format: 'text', extra: 1 },
  });
  assert.is(url.status, 200);
  assert.is(url.body, `${TEXT}\n`);
  assert.is(url.headers.get('content-type'), 'text/plain; charset=utf-8');
  const words = await server.request('POST', '/v1/audio/transcriptions', {
    token: account.token,
    body: { file_data: WAV.toString('base64'), response_format: 'verbose_json', timestamp_granularities: ['word'] },
  });
  assert.is(words.body.words.length, 7);
});

test('audio without sim voice still gets a deterministic transcript and is billed by its length', async () => {
  const tone = toneWav(2);
  const a = await client().audio.transcriptions.create({ file: await toFile(tone, 'tone.wav'), model: 'pro-1' });
  const b = await client().audio.transcriptions.create({ file: await toFile(tone, 'tone.wav'), model: 'pro-1' });
  assert.ok(a.text.length > 0);
  assert.is(a.text, b.text);
  assert.is((a as { usage?: { seconds: number } }).usage?.seconds, 2);
});

async function sdkError(params: Record<string, unknown>, token = account.token): Promise<APIError> {
  try {
    await server
      .openai(token)
      .audio.transcriptions.create({ file: await toFile(WAV, 'a.wav'), model: 'pro-1', ...params } as never);
  } catch (err) {
    assert.instance(err, APIError);
    return err as APIError;
  }
  assert.unreachable('expected an error');
  throw new Error('unreachable');
}

test('bad input is refused before anything is charged: audio that does not decode, empty, too short, bad options', async () => {
  const before = await balanceOf(server, account);
  const cases: [string, Record<string, unknown>, number, string][] = [
    ['not audio', { file: await toFile(Buffer.from('this is not audio at all, just text'), 'notes.mp3') }, 422, 'file'],
    ['empty file', { file: await toFile(Buffer.alloc(0), 'empty.wav') }, 422, 'file'],
    ['too short', { file: await toFile(toneWav(0.05), 'blip.wav') }, 422, 'file'],
    ['unknown response_format', { response_format: 'xml' }, 422, 'response_format'],
    ['stream with srt', { stream: true, response_format: 'srt' }, 422, 'stream'],
    ['bad granularity', { timestamp_granularities: ['sentence'] }, 422, 'timestamp_granularities'],
    ['premium backend', { backend: 'premium' }, 422, 'backend'],
    ['temperature out of range', { temperature: 3 }, 422, 'temperature'],
  ];
  for (const [what, params, status, field] of cases) {
    const err = await sdkError(params);
    assert.is(err.status, status, what);
    assert.is(err.param?.split('.')[0], field, what);
  }
  const noFile = new FormData();
  noFile.append('model', 'pro-1');
  const res = await fetch(`${server.url}/v1/audio/transcriptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.token}` },
    body: noFile,
  });
  assert.is(res.status, 422, 'no file part');
  const json = await server.request('POST', '/v1/audio/transcriptions', {
    token: account.token,
    body: { file_data: 'not base64 !!!' },
  });
  assert.is(json.status, 422, 'bad base64');
  const missing = await server.request('POST', '/v1/audio/transcriptions', {
    token: account.token,
    body: { model: 'pro-1' },
  });
  assert.is(missing.status, 422, 'no file_data');
  assert.equal(missing.body.detail[0].loc, ['body', 'file_data']);
  const text = await server.request('POST', '/v1/audio/transcriptions', {
    token: account.token,
    raw: 'hello',
    headers: { 'content-type': 'text/plain' },
  });
  assert.is(text.status, 415, 'neither multipart nor JSON');
  assert.is(await balanceOf(server, account), before, 'nothing charged');
});

test('an unknown model is 404, a zero balance 402 (before the upload is read), a file over 25 MiB 413', async () => {
  const model = await sdkError({ model: 'whisper-9' });
  assert.is(model.status, 404);
  const broke = await server.account(0);
  const poor = await sdkError({}, broke.token);
  assert.is(poor.status, 402);
  assert.is(poor.code, 'insufficient_balance');
  const huge = await sdkError({ file: await toFile(Buffer.alloc(25 * 1024 * 1024 + 1), 'huge.wav') });
  assert.is(huge.status, 413);
  assert.is(huge.code, 'payload_too_large');
});

test('audio longer than 25 minutes is 422 (the decode stops there)', async () => {
  // 26 minutes of 8 kHz silence as WAV is 25 MB: small enough to send, too long to transcribe.
  const samples = new Int16Array(8_000 * 60 * 26 - 1000);
  const res = await server
    .openai(account.token)
    .audio.transcriptions.create({ file: await toFile(pcm16Wav(samples, 8_000), 'long.wav'), model: 'pro-1' })
    .catch((err: unknown) => err as APIError);
  assert.instance(res, APIError);
  assert.is((res as APIError).status, 422);
});

test.run();
