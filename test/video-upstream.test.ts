import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ffprobe } from '../backends/ffmpeg/ffmpeg.js';
import { startServer, type TestAccount, type TestServer } from './harness.js';
import { money, svcUpstreamEnv } from './media-fixture.js';
import { clipBody, followJob } from './video-fixture.js';

const test = suite('video jobs: the openai-compatible backend drives a remote job API (another svc as upstream)');
let upstream: TestServer;
let upstreamAccount: TestAccount;
let gateway: TestServer;
let account: TestAccount;

test.before(async () => {
  upstream = await startServer({ SVC_SIM_VIDEO_SECONDS_PER_SECOND: '0.2', SVC_VIDEO_POLL_MS: '20' });
  upstreamAccount = await upstream.account(20);
  gateway = await startServer(
    svcUpstreamEnv(upstream, upstreamAccount.token, {
      SVC_VIDEO_BACKEND: 'openai-compatible',
      SVC_VIDEO_POLL_MS: '20',
    }),
  );
  account = await gateway.account(20);
});
test.after(async () => {
  await gateway.close();
  await upstream.close();
});

test('a job is submitted upstream once, polled to completion, its MP4 stored here and charged once at our rate', async () => {
  const job = (
    await gateway.request('POST', '/v1/videos/generations', {
      token: account.token,
      body: clipBody('remote', { duration_seconds: 2, size: '480x272' }),
    })
  ).body;
  assert.is(job.svc.backend, 'openai-compatible');
  const events = await followJob(gateway.url, account.token, job.id);
  assert.is(events.at(-1)!.type, 'completed', JSON.stringify(events.at(-1)));
  const done = (await gateway.request('GET', `/v1/videos/generations/${job.id}`, { token: account.token })).body;
  assert.is(done.status, 'completed');
  const info = await ffprobe(Buffer.from(await (await fetch(done.data[0].url)).arrayBuffer()));
  const video = info.streams.find((stream) => stream.codecType === 'video')!;
  assert.equal([video.codecName, video.width, video.height], ['h264', 480, 272]);
  assert.ok(Math.abs(info.durationSeconds! - 2) < 0.1);
  const remote = await upstream.openai(upstreamAccount.token).videos.list();
  assert.is(remote.data.length, 1, 'one job upstream');
  assert.is(remote.data[0]!.status, 'completed');
  assert.is(Math.round(done.svc.our_cost_usd * 1e6), 2 * 100_000, 'the declared upstream rate');
  const spent = 20_000_000 - (await money(gateway, account.token)).balance;
  assert.is(spent, Math.round(done.svc.price_usd * 1e6));
});

test('cancelling here cancels the job upstream too; an upstream refusal fails the job with no charge', async () => {
  // An upstream whose jobs take an hour of work per second of clip, so the job is surely running there.
  const slowUpstream = await startServer({ SVC_SIM_VIDEO_SECONDS_PER_SECOND: '3600' });
  const slowAccount = await slowUpstream.account(20);
  const slowGateway = await startServer(
    svcUpstreamEnv(slowUpstream, slowAccount.token, {
      SVC_VIDEO_BACKEND: 'openai-compatible',
      SVC_VIDEO_POLL_MS: '20',
    }),
  );
  try {
    const payer = await slowGateway.account(5);
    const slow = (
      await slowGateway.request('POST', '/v1/videos/generations', { token: payer.token, body: clipBody('remote slow') })
    ).body;
    // Once the upstream has taken the job (its id is in the job's context), cancel it here.
    await slowGateway.app.deps.host.waitFor(
      slow.id,
      (snapshot) => (snapshot as unknown as { context: { remote: unknown } }).context.remote !== null,
    );
    const cancelled = await slowGateway.request('POST', `/v1/videos/generations/${slow.id}/cancel`, {
      token: payer.token,
    });
    assert.is(cancelled.body.status, 'cancelled');
    const remote = await slowUpstream.openai(slowAccount.token).videos.list();
    assert.equal(
      remote.data.map((video) => video.status),
      ['cancelled'],
      'the upstream job was cancelled',
    );
    assert.equal(await money(slowGateway, payer.token), { balance: 5_000_000, held: 0 });
  } finally {
    await slowGateway.close();
    await slowUpstream.close();
  }

  const broke = await upstream.account(0);
  const refusing = await startServer(
    svcUpstreamEnv(upstream, broke.token, { SVC_VIDEO_BACKEND: 'openai-compatible', SVC_VIDEO_POLL_MS: '20' }),
  );
  try {
    const payer = await refusing.account(5);
    const job = (
      await refusing.request('POST', '/v1/videos/generations', {
        token: payer.token,
        body: clipBody('refused upstream'),
      })
    ).body;
    const events = await followJob(refusing.url, payer.token, job.id);
    assert.is(events.at(-1)!.type, 'failed');
    assert.equal(await money(refusing, payer.token), { balance: 5_000_000, held: 0 });
  } finally {
    await refusing.close();
  }
});

test.run();
