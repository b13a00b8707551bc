import type OpenAI from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ffprobe } from '../backends/ffmpeg/ffmpeg.js';
import { VideoJobEventSchema, VideoJobListSchema, VideoJobSchema } from '../protocols/video.js';
import { startServer, type TestAccount, type TestServer } from './harness.js';
import { charges, micros, money } from './media-fixture.js';
import { clipBody, followJob } from './video-fixture.js';
import { assertWire } from './wire-check.js';

const test = suite('video jobs: durable actors made by the sim, read with the SDK, charged once');
let server: TestServer;
let account: TestAccount;

test.before(async () => {
  // The sim's job-time model shortened: 0.2 s of work per second of clip, polled every 20 ms.
  server = await startServer({ SVC_SIM_VIDEO_SECONDS_PER_SECOND: '0.2', SVC_VIDEO_POLL_MS: '20' });
  account = await server.account(20);
});
test.after(() => server.close());

async function probe(bytes: Buffer) {
  const info = await ffprobe(bytes);
  const video = info.streams.find((stream) => stream.codecType === 'video');
  return {
    format: info.formatName,
    codec: video?.codecName,
    width: video?.width,
    height: video?.height,
    duration: info.durationSeconds,
  };
}

test('a job completes without anyone polling: stored, data[].url served, charged exactly once', async () => {
  const before = await money(server, account.token);
  const created = assertWire(
    VideoJobSchema,
    await server.request('POST', '/v1/videos/generations', {
      token: account.token,
      body: clipBody('unpolled', { duration_seconds: 2 }),
    }),
    201,
  );
  assert.is(created.status, 'queued');
  assert.equal(created.data, []);
  assert.is(created.svc.charged, false);
  const held = await money(server, account.token);
  assert.is(held.held, micros(created.svc.hold_usd), 'the price is held while the job runs');
  // No request touches the job until it is over: the server runs it by itself.
  await server.app.deps.videos.finished(created.id);
  const done = assertWire(
    VideoJobSchema,
    await server.request('GET', `/v1/videos/generations/${created.id}`, { token: account.token }),
  );
  assert.is(done.status, 'completed');
  assert.is(done.progress, 100);
  assert.is(done.svc.state, 'completed');
  assert.ok(done.svc.charged);
  assert.is(micros(done.svc.price_usd), Math.ceil(micros(done.svc.our_cost_usd) * 1.25), 'cost-plus 25 %');
  assert.is(done.data.length, 1);
  // The URL is signed: it works without a token.
  const clip = await fetch(done.data[0]!.url);
  assert.is(clip.status, 200);
  assert.is(clip.headers.get('content-type'), 'video/mp4');
  const bytes = Buffer.from(await clip.arrayBuffer());
  assert.is(bytes.length, done.data[0]!.bytes);
  const info = await probe(bytes);
  assert.equal([info.codec, info.width, info.height], ['h264', 320, 240]);
  assert.ok(info.format.includes('mp4'));
  assert.ok(Math.abs(info.duration! - 2) < 0.1, `duration ${info.duration}`);
  const after = await money(server, account.token);
  assert.is(before.balance - after.balance, micros(done.svc.price_usd));
  assert.is(after.held, 0);
  const mine = (await charges(server, account.token)).filter((entry) => entry.description.includes(created.id));
  assert.is(mine.length, 1, 'one ledger entry');
  // Reading it again charges nothing more.
  await server.request('GET', `/v1/videos/generations/${created.id}`, { token: account.token });
  assert.is((await money(server, account.token)).balance, after.balance);
});

test('the official SDK: videos.create (multipart), retrieve, downloadContent over the same actors', async () => {
  const client: OpenAI = server.openai(account.token);
  const video = await client.videos.create({ prompt: 'a red kite over green hills', seconds: '4', size: '720x1280' });
  assert.is(video.status, 'queued');
  assert.is(video.seconds, '4');
  assert.is(video.size, '720x1280');
  await server.app.deps.videos.finished(video.id);
  const seen = await client.videos.retrieve(video.id);
  assert.is(seen.status, 'completed');
  assert.is(seen.progress, 100);
  const spec = assertWire(
    VideoJobSchema,
    await server.request('GET', `/v1/videos/generations/${video.id}`, { token: account.token }),
  );
  assert.is(spec.id, video.id, 'the spec route reads the SDK-made job');
  const response = await client.videos.downloadContent(video.id);
  const info = await probe(Buffer.from(await response.arrayBuffer()));
  assert.equal([info.codec, info.width, info.height], ['h264', 720, 1280]);
  assert.ok(Math.abs(info.duration! - 4) < 0.1, `duration ${info.duration}`);
  const page = await client.videos.list({ limit: 10 });
  assert.ok(page.data.some((job) => job.id === video.id));
  assertWire(VideoJobListSchema, await server.request('GET', '/v1/videos?limit=1', { token: account.token }));
  const deleted = await client.videos.delete(video.id);
  assert.is(deleted.deleted, true);
  const gone = await client.videos.retrieve(video.id).catch((err: unknown) => err);
  assert.is((gone as { status?: number }).status, 404);
});

test('the same seed and prompt give the same clip; another seed another', async () => {
  const make = async (seed: number) => {
    const job = await server.request('POST', '/v1/videos/generations', {
      token: account.token,
      body: clipBody('seeded', { seed }),
    });
    await server.app.deps.videos.finished(job.body.id);
    const res = await server.openai(account.token).videos.downloadContent(job.body.id);
    return Buffer.from(await res.arrayBuffer());
  };
  const [one, two, three] = [await make(11), await make(11), await make(12)];
  assert.ok(one.equals(two), 'same seed, same bytes');
  assert.not.ok(one.equals(three));
});

test('progress is followed live over SSE: queued, started, progress, completed with a URL, in order', async () => {
  const job = await server.request('POST', '/v1/videos/generations', {
    token: account.token,
    body: clipBody('followed', { duration_seconds: 3 }),
  });
  const events = await followJob(server.url, account.token, job.body.id);
  for (const event of events) VideoJobEventSchema.parse(event);
  const types = events.map((event) => event.type);
  assert.is(types[0], 'queued');
  assert.is(types[1], 'started');
  assert.is(types.at(-1), 'completed');
  assert.ok(types.includes('progress'), types.join(','));
  assert.equal(
    events.map((event) => event.seq),
    events.map((_, i) => i + 1),
    'gap-free seqs',
  );
  const progress = events.filter((event) => event.type === 'progress').map((event) => event.data.progress as number);
  assert.equal(
    progress,
    [...progress].sort((a, b) => a - b),
    'progress only grows',
  );
  const completed = events.at(-1)!;
  assert.ok((await fetch(completed.data.url as string)).ok, 'the completed event carries a working signed URL');
  // Resuming after the last seen seq gives only what came later: nothing here.
  const again = await fetch(`${server.url}/v1/videos/${job.body.id}/events`, {
    headers: { authorization: `Bearer ${account.token}`, 'last-event-id': String(completed.seq) },
  });
  assert.not.match(await again.text(), /event: /);
});

test('an Idempotency-Key makes one job for concurrent requests, replays it, and refuses another body', async () => {
  const headers = { 'idempotency-key': 'clip-once-1' };
  const before = await money(server, account.token);
  const body = clipBody('keyed');
  const answers = await Promise.all(
    [1, 2, 3, 4].map(() => server.request('POST', '/v1/videos/generations', { token: account.token, body, headers })),
  );
  const ids = new Set(answers.map((answer) => answer.body.id));
  assert.is(ids.size, 1, 'one job');
  assert.equal(answers.map((answer) => answer.status).sort(), [200, 200, 200, 201]);
  const [id] = [...ids] as [string];
  const during = await money(server, account.token);
  assert.ok(during.held - before.held <= micros(answers[0]!.body.svc.hold_usd), 'one hold at most');
  const other = await server.request('POST', '/v1/videos/generations', {
    token: account.token,
    body: clipBody('another body'),
    headers,
  });
  assert.is(other.status, 409);
  assert.is(other.body.error.code, 'conflict');
  await server.app.deps.videos.finished(id);
  const replay = await server.request('POST', '/v1/videos/generations', { token: account.token, body, headers });
  assert.is(replay.status, 200);
  assert.is(replay.headers.get('idempotent-replayed'), 'true');
  assert.is(replay.body.status, 'completed');
  assert.is((await charges(server, account.token)).filter((entry) => entry.description.includes(id)).length, 1);
});

test('the tier rule: quality high is premium, low standard, otherwise premium above 1280x720', async () => {
  const tierOf = async (extra: Record<string, unknown>) =>
    (
      await server.request('POST', '/v1/estimate', {
        token: account.token,
        body: { modality: 'video', prompt: 'p', ...extra },
      })
    ).body;
  const job = async (extra: Record<string, unknown>) =>
    (await server.request('POST', '/v1/videos/generations', { token: account.token, body: clipBody('tier', extra) }))
      .body;
  const high = await job({ quality: 'high' });
  assert.is(high.svc.tier, 'premium');
  const low = await job({ quality: 'low', size: '1920x1080' });
  assert.is(low.svc.tier, 'standard');
  const hd = await job({ size: '1280x720' });
  assert.is(hd.svc.tier, 'standard');
  const big = await job({ size: '1920x1080' });
  assert.is(big.svc.tier, 'premium');
  const estimate = await tierOf({ size: '1920x1080', duration_seconds: 1 });
  assert.is(micros(estimate.cost_usd.max), micros(big.svc.hold_usd), 'the estimate is the hold');
  // Every job ends here, so the next test's balance reading is not moved by one of these finishing.
  for (const id of [high.id, low.id, hd.id, big.id]) await server.app.deps.videos.finished(id);
});

test('bad requests are 422 naming the field, before any hold or backend call', async () => {
  const { videos } = server.app.deps;
  const calls = videos.backendCalls;
  const before = await money(server, account.token);
  const cases: [Record<string, unknown>, string][] = [
    [{ size: '321x240' }, 'size'],
    [{ size: '4000x240' }, 'size'],
    [{ size: '2048x128' }, 'size'],
    [{ size: 'big' }, 'size'],
    [{ duration_seconds: 0 }, 'duration_seconds'],
    [{ duration_seconds: 61 }, 'duration_seconds'],
    [{ duration_seconds: 4, seconds: '8' }, 'seconds'],
    [{ prompt: '' }, 'prompt'],
    [{ seed: -1 }, 'seed'],
    [{ quality: 'ultra' }, 'quality'],
  ];
  for (const [extra, field] of cases) {
    const res = await server.request('POST', '/v1/videos/generations', {
      token: account.token,
      body: clipBody('bad', extra),
    });
    assert.is(res.status, 422, `${JSON.stringify(extra)}: ${JSON.stringify(res.body)}`);
    assert.ok(
      res.body.detail.some((item: { loc: string[] }) => item.loc.includes(field)),
      `${field} named: ${JSON.stringify(res.body.detail)}`,
    );
  }
  const sdk = await server
    .openai(account.token)
    .videos.create({ prompt: 'x', size: '100x100' as never })
    .catch((err: unknown) => err);
  assert.is((sdk as { status?: number }).status, 422);
  assert.is(videos.backendCalls, calls, 'no backend call');
  assert.equal(await money(server, account.token), before, 'no hold, no charge');
});

test('events are typed on the wire; unknown jobs are 404 on every route', async () => {
  for (const [method, path] of [
    ['GET', '/v1/videos/generations/video_nope'],
    ['POST', '/v1/videos/generations/video_nope/cancel'],
    ['GET', '/v1/videos/generations/video_nope/events'],
    ['GET', '/v1/videos/video_nope/content'],
  ] as const) {
    const res = await server.request(method, path, { token: account.token });
    assert.is(res.status, 404, `${method} ${path}`);
    assert.is(res.body.error.code, 'not_found');
  }
});

test.run();
