import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ffprobe } from '../backends/ffmpeg/ffmpeg.js';
import { startChildServer, type ChildServer } from './child-server.js';
import { ADMIN_KEY, tempDataDir } from './harness.js';
import { clipBody, followJob } from './video-fixture.js';

const test = suite('video jobs: SIGKILL mid-job, restart, the job resumes and is charged once');
const dataDir = tempDataDir();
// One second of sim work per second of clip, polled every 100 ms: a 3 s clip runs about 3 s.
const env = {
  SVC_DATA_DIR: dataDir,
  SVC_ADMIN_KEY: ADMIN_KEY,
  SVC_SIM_VIDEO_SECONDS_PER_SECOND: '1',
  SVC_VIDEO_POLL_MS: '100',
  SVC_VIDEO_MAX_RUNNING: '1',
};
let server: ChildServer | undefined;

test.after(async () => {
  await server?.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

async function call(method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(server!.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

test('a running job and a queued one survive kill -9: both complete after restart, gap-free logs, one charge each', async () => {
  server = await startChildServer(env);
  const admin = await call('POST', '/admin/v1/accounts', ADMIN_KEY, {
    email: 'video-crash@example.com',
    password: 'crash-pass-1',
    credit_usd: 5,
  });
  const token = admin.body.api_token.token as string;
  const running = await call(
    'POST',
    '/v1/videos/generations',
    token,
    clipBody('crash running', { duration_seconds: 3 }),
  );
  const queued = await call('POST', '/v1/videos/generations', token, clipBody('crash queued', { duration_seconds: 1 }));
  assert.equal([running.status, queued.status], [201, 201]);
  await followJob(server.url, token, running.body.id, (event) => event.type === 'progress');
  const mid = await call('GET', `/v1/videos/generations/${running.body.id}`, token);
  assert.is(mid.body.status, 'in_progress');
  assert.is((await call('GET', `/v1/videos/generations/${queued.body.id}`, token)).body.status, 'queued');
  await server.kill('SIGKILL');

  server = await startChildServer(env);
  // Nobody polls: the restored jobs go on by themselves; their event streams end with their ending event.
  const resumed = await followJob(server.url, token, running.body.id);
  const next = await followJob(server.url, token, queued.body.id);
  for (const events of [resumed, next]) {
    assert.is(events.at(-1)!.type, 'completed', events.map((event) => event.type).join(','));
    assert.equal(
      events.map((event) => event.seq),
      events.map((_, i) => i + 1),
      'gap-free and no duplicates',
    );
    assert.is(
      events.filter((event) => event.type === 'started').length,
      1,
      'started once: the backend job was not submitted again',
    );
  }
  const progress = resumed.filter((event) => event.type === 'progress').map((event) => event.data.progress as number);
  assert.equal(
    progress,
    [...progress].sort((a, b) => a - b),
    'progress carries on from where it was',
  );

  const jobs = await Promise.all(
    [running, queued].map(async (job) => (await call('GET', `/v1/videos/generations/${job.body.id}`, token)).body),
  );
  const usage = await call('GET', '/v1/account/usage', token);
  let total = 0;
  for (const job of jobs) {
    assert.is(job.status, 'completed');
    const mine = usage.body.recent.filter(
      (entry: { type: string; description: string }) => entry.type === 'charge' && entry.description.includes(job.id),
    );
    assert.is(mine.length, 1, `charged exactly once: ${JSON.stringify(usage.body.recent)}`);
    assert.is(Math.round(-mine[0].amount_usd * 1e6), Math.round(job.svc.price_usd * 1e6));
    total += Math.round(job.svc.price_usd * 1e6);
  }
  const account = await call('GET', '/v1/account', token);
  assert.is(Math.round(account.body.balance_usd * 1e6), 5_000_000 - total);
  assert.is(account.body.held_usd, 0, 'no hold left behind');

  const clip = await fetch(jobs[0].data[0].url);
  const info = await ffprobe(Buffer.from(await clip.arrayBuffer()));
  assert.ok(Math.abs(info.durationSeconds! - 3) < 0.1, `a whole 3 s clip: ${info.durationSeconds}`);
});

test.run();
