import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { VideoJobSchema } from '../protocols/video.js';
import { startServer, type TestAccount, type TestServer } from './harness.js';
import { charges, micros, money } from './media-fixture.js';
import { clipBody, followJob } from './video-fixture.js';
import { assertWire } from './wire-check.js';

const test = suite('video jobs: cancel in each state, and what it charges (nothing)');
let server: TestServer;
let account: TestAccount;

test.before(async () => {
  // One job runs at a time, so a second one stays queued while the first runs.
  server = await startServer({
    SVC_SIM_VIDEO_SECONDS_PER_SECOND: '0.2',
    SVC_VIDEO_POLL_MS: '20',
    SVC_VIDEO_MAX_RUNNING: '1',
  });
  account = await server.account(20);
});
test.after(() => server.close());

/** A job that runs for a long while (an hour of sim work per second of clip) until cancelled. */
const slow = (tag: string) => clipBody(tag, { metadata: { sim: { seconds_per_second: 3600 } } });
const create = async (body: Record<string, unknown>) =>
  assertWire(
    VideoJobSchema,
    await server.request('POST', '/v1/videos/generations', { token: account.token, body }),
    201,
  );
const cancel = (id: string, body?: unknown) =>
  server.request('POST', `/v1/videos/generations/${id}/cancel`, { token: account.token, body });

test('cancel while running and while queued: cancelled, nothing charged, the holds given back, the queue moves on', async () => {
  const before = await money(server, account.token);
  const running = await create(slow('running'));
  const queued = await create(slow('queued'));
  await followJob(
    server.url,
    account.token,
    running.id,
    (event) => event.type === 'progress' || event.type === 'started',
  );
  const states = [running, queued].map(
    async (job) =>
      (await server.request('GET', `/v1/videos/generations/${job.id}`, { token: account.token })).body.status,
  );
  assert.equal(await Promise.all(states), ['in_progress', 'queued']);
  assert.is((await money(server, account.token)).held, micros(running.svc.hold_usd) + micros(queued.svc.hold_usd));

  const third = await create(clipBody('after the cancelled ones'));
  const queuedCancel = assertWire(VideoJobSchema, await cancel(queued.id, { reason: 'changed my mind' }));
  assert.is(queuedCancel.status, 'cancelled');
  assert.is(queuedCancel.started_at, null, 'it never started');
  const runningCancel = assertWire(VideoJobSchema, await cancel(running.id));
  assert.is(runningCancel.status, 'cancelled');
  assert.is(runningCancel.svc.price_usd, 0);
  assert.is(runningCancel.svc.charged, false);
  assert.equal(runningCancel.data, []);
  const events = await followJob(server.url, account.token, queued.id);
  assert.equal(
    events.map((event) => event.type),
    ['queued', 'cancelled'],
  );
  assert.is(events[1]!.data.reason, 'changed my mind');

  // The freed slot runs the next job in line.
  await server.app.deps.videos.finished(third.id);
  const after = await money(server, account.token);
  const thirdDone = (await server.request('GET', `/v1/videos/generations/${third.id}`, { token: account.token })).body;
  assert.is(thirdDone.status, 'completed');
  assert.is(before.balance - after.balance, micros(thirdDone.svc.price_usd), 'only the completed job is charged');
  assert.is(after.held, 0);
  const ids = (await charges(server, account.token)).map((entry) => entry.description);
  assert.not.ok(ids.some((text) => text.includes(running.id) || text.includes(queued.id)));
});

test('cancel of a finished job is 409 and changes nothing: completed, failed, cancelled', async () => {
  const completed = await create(clipBody('finished'));
  await server.app.deps.videos.finished(completed.id);
  const failed = await create(clipBody('doomed', { metadata: { sim: { fail: 'error' } } }));
  await server.app.deps.videos.finished(failed.id);
  const cancelled = await create(slow('twice'));
  assert.is((await cancel(cancelled.id)).status, 200);
  const balance = await money(server, account.token);
  for (const [job, status] of [
    [completed, 'completed'],
    [failed, 'failed'],
    [cancelled, 'cancelled'],
  ] as const) {
    const res = await cancel(job.id);
    assert.is(res.status, 409, `${status}: ${JSON.stringify(res.body)}`);
    assert.is(res.body.error.code, 'conflict');
    assert.is(
      (await server.request('GET', `/v1/videos/generations/${job.id}`, { token: account.token })).body.status,
      status,
    );
  }
  assert.equal(await money(server, account.token), balance);
});

test('cancel through the SDK route, with a body that is not JSON: 422 or 400, the job keeps running', async () => {
  const job = await create(slow('bad cancel body'));
  const res = await server.request('POST', `/v1/videos/${job.id}/cancel`, {
    token: account.token,
    raw: '{"reason": 5}',
    headers: { 'content-type': 'application/json' },
  });
  assert.is(res.status, 422);
  assert.is((await server.request('GET', `/v1/videos/${job.id}`, { token: account.token })).body.svc.charged, false);
  const ok = await server.request('POST', `/v1/videos/${job.id}/cancel`, { token: account.token });
  assert.is(ok.body.status, 'cancelled');
});

test.run();
