import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestAccount, type TestServer } from './harness.js';
import { charges, money } from './media-fixture.js';
import { clipBody, followJob } from './video-fixture.js';

const test = suite('video jobs: owner only, 402 without balance, a failing backend charges nothing');
let server: TestServer;
let owner: TestAccount;
let stranger: TestAccount;

test.before(async () => {
  server = await startServer({ SVC_SIM_VIDEO_SECONDS_PER_SECOND: '0.2', SVC_VIDEO_POLL_MS: '20' });
  owner = await server.account(20);
  stranger = await server.account(20);
});
test.after(() => server.close());

test("another account's job is 404 on every route, the SDK's included, and is left untouched", async () => {
  const job = (
    await server.request('POST', '/v1/videos/generations', { token: owner.token, body: clipBody('private') })
  ).body;
  await server.app.deps.videos.finished(job.id);
  for (const [method, path] of [
    ['GET', `/v1/videos/generations/${job.id}`],
    ['POST', `/v1/videos/generations/${job.id}/cancel`],
    ['GET', `/v1/videos/generations/${job.id}/events`],
    ['GET', `/v1/videos/${job.id}`],
    ['POST', `/v1/videos/${job.id}/cancel`],
    ['GET', `/v1/videos/${job.id}/content`],
    ['DELETE', `/v1/videos/${job.id}`],
  ] as const) {
    const res = await server.request(method, path, { token: stranger.token });
    assert.is(res.status, 404, `${method} ${path}`);
    assert.is(res.body.error.code, 'not_found');
  }
  const sdk = await server
    .openai(stranger.token)
    .videos.retrieve(job.id)
    .catch((err: unknown) => err);
  assert.is((sdk as { status?: number }).status, 404);
  const list = await server.openai(stranger.token).videos.list();
  assert.not.ok(list.data.some((video) => video.id === job.id));
  assert.is((await server.request('GET', `/v1/videos/${job.id}`, { token: owner.token })).body.status, 'completed');
  assert.is((await server.request('GET', `/v1/videos/${job.id}`)).status, 401, 'no token at all is 401');
});

test('zero balance: 402 before any job exists or any backend call; too little for the hold too', async () => {
  const broke = await server.account(0);
  const calls = server.app.deps.videos.backendCalls;
  const res = await server.request('POST', '/v1/videos/generations', { token: broke.token, body: clipBody('broke') });
  assert.is(res.status, 402);
  assert.is(res.body.error.code, 'insufficient_balance');
  const sdk = await server
    .openai(broke.token)
    .videos.create({ prompt: 'broke too', seconds: '4' })
    .catch((err: unknown) => err);
  assert.is((sdk as { status?: number }).status, 402);
  const poor = await server.account(0.01);
  const big = await server.request('POST', '/v1/videos/generations', {
    token: poor.token,
    body: clipBody('too big', { duration_seconds: 20, size: '1920x1080' }),
  });
  assert.is(big.status, 402);
  assert.is(server.app.deps.videos.backendCalls, calls, 'no backend call');
  assert.equal((await server.openai(broke.token).videos.list()).data, [], 'no job was made');
  assert.equal(await money(server, broke.token), { balance: 0, held: 0 });
});

test('a failing backend charges nothing: a refused submit, a job failing midway, an outage', async () => {
  const before = await money(server, owner.token);
  const ids: string[] = [];
  for (const [sim, code] of [
    [{ fail: 'error' }, 'upstream_error'],
    [{ fail_at_progress: 30 }, 'generation_failed'],
    [{ fail: 'unavailable' }, 'upstream_unavailable'],
  ] as const) {
    const job = (
      await server.request('POST', '/v1/videos/generations', {
        token: owner.token,
        body: clipBody(`fails ${code}`, { metadata: { sim } }),
      })
    ).body;
    assert.is(job.status, 'queued');
    ids.push(job.id);
    const events = await followJob(server.url, owner.token, job.id);
    assert.is(events.at(-1)!.type, 'failed');
    assert.is(events.at(-1)!.data.code, code);
    const failed = (await server.request('GET', `/v1/videos/generations/${job.id}`, { token: owner.token })).body;
    assert.is(failed.status, 'failed');
    assert.is(failed.error.code, code);
    assert.equal(failed.data, []);
    assert.is(failed.svc.price_usd, 0);
    const content = await server.request('GET', `/v1/videos/${job.id}/content`, { token: owner.token });
    assert.is(content.status, 409, 'no content for a failed job');
  }
  assert.equal(await money(server, owner.token), { balance: before.balance, held: 0 }, 'nothing charged, nothing held');
  assert.is(
    (await charges(server, owner.token)).filter((entry) => ids.some((id) => entry.description.includes(id))).length,
    0,
  );
});

test.run();
