import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { nextNodeState, initialNodeLife } from '../actors/video/video-node-machine.js';
import { VideoNodeChangeSchema, VideoProjectListSchema, VideoProjectSchema } from '../protocols/video.js';
import { startServer, type TestAccount, type TestServer } from './harness.js';
import { clipBody } from './video-fixture.js';
import { assertWire } from './wire-check.js';

const test = suite('video projects: node graphs, approval, attached jobs (spec 4.8)');
let server: TestServer;
let account: TestAccount;

test.before(async () => {
  server = await startServer({ SVC_SIM_VIDEO_SECONDS_PER_SECOND: '0.2', SVC_VIDEO_POLL_MS: '20' });
  account = await server.account(20);
});
test.after(() => server.close());

const storyboard = {
  name: 'Harbour short',
  description: 'two shots in one scene',
  nodes: [
    { id: 'scene-1', type: 'scene', title: 'Dawn', prompt: 'a harbour at dawn' },
    { id: 'shot-1', type: 'shot', prompt: 'boats leave the harbour', duration_seconds: 1, depends_on: ['scene-1'] },
    { id: 'shot-2', prompt: 'gulls over the water', depends_on: ['shot-1'] },
  ],
};
const call = (method: string, path: string, body?: unknown, token = account.token) =>
  server.request(method, path, { token, body });

test('create, read and list: every node starts draft; defaults filled; list omits nodes, newest first, limit 50 by default', async () => {
  const created = assertWire(VideoProjectSchema, await call('POST', '/v1/video-projects', storyboard), 201);
  assert.is(created.node_count, 3);
  assert.equal(created.status_counts, { draft: 3, approved: 0, rendering: 0, rendered: 0, failed: 0 });
  assert.is(created.nodes[2]!.type, 'shot', 'type defaults to shot');
  const read = assertWire(VideoProjectSchema, await call('GET', `/v1/video-projects/${created.id}`));
  assert.equal(
    read.nodes.map((node) => node.id),
    ['scene-1', 'shot-1', 'shot-2'],
  );
  const second = assertWire(VideoProjectSchema, await call('POST', '/v1/video-projects', { name: 'Empty' }), 201);
  const list = assertWire(VideoProjectListSchema, await call('GET', '/v1/video-projects'));
  assert.is(list.limit, 50);
  assert.equal(
    list.data.slice(0, 2).map((project) => project.id),
    [second.id, created.id],
  );
  const one = assertWire(VideoProjectListSchema, await call('GET', '/v1/video-projects?limit=1'));
  assert.is(one.data.length, 1);
  assert.ok(one.has_more);
});

test('bad bodies are 422 naming the field: duplicate ids, unknown or cyclic dependencies, bad ids, empty name', async () => {
  const cases: [unknown, string][] = [
    [{ name: '' }, 'name'],
    [{ name: 'x', nodes: [{ id: 'a' }, { id: 'a' }] }, 'id'],
    [{ name: 'x', nodes: [{ id: 'a', depends_on: ['zz'] }] }, 'depends_on'],
    [{ name: 'x', nodes: [{ id: 'a', depends_on: ['a'] }] }, 'depends_on'],
    [
      {
        name: 'x',
        nodes: [
          { id: 'a', depends_on: ['b'] },
          { id: 'b', depends_on: ['a'] },
        ],
      },
      'depends_on',
    ],
    [{ name: 'x', nodes: [{ id: 'has space' }] }, 'id'],
    [{ name: 'x', nodes: [{ id: 'a', type: 'movie' }] }, 'type'],
    [{ name: 'x', nodes: [{ id: 'a', duration_seconds: 0 }] }, 'duration_seconds'],
  ];
  for (const [body, field] of cases) {
    const res = await call('POST', '/v1/video-projects', body);
    assert.is(res.status, 422, JSON.stringify(body));
    assert.ok(
      res.body.detail.some((item: { loc: (string | number)[] }) => item.loc.includes(field)),
      `${field}: ${JSON.stringify(res.body.detail)}`,
    );
  }
  const project = (await call('POST', '/v1/video-projects', storyboard)).body;
  const cyc = await call('PATCH', `/v1/video-projects/${project.id}/nodes/scene-1`, { depends_on: ['shot-2'] });
  assert.is(cyc.status, 422, 'a patch that closes a cycle');
  assert.is((await call('PATCH', `/v1/video-projects/${project.id}/nodes/shot-1`, { prompt: 5 })).status, 422);
  assert.is((await call('GET', '/v1/video-projects?limit=0')).status, 422);
});

test('approve follows dependencies; a PATCH changes only what it names and sends an approved node back to draft', async () => {
  const project = (await call('POST', '/v1/video-projects', storyboard)).body;
  const base = `/v1/video-projects/${project.id}/nodes`;
  const early = await call('POST', `${base}/shot-1/approve`);
  assert.is(early.status, 409, 'scene-1 is not approved yet');
  assertWire(VideoNodeChangeSchema, await call('POST', `${base}/scene-1/approve`, { note: 'looks right' }));
  const approved = assertWire(VideoNodeChangeSchema, await call('POST', `${base}/shot-1/approve`));
  assert.is(approved.node.status, 'approved');
  assert.ok(approved.node.approved_at);
  const patched = assertWire(VideoNodeChangeSchema, await call('PATCH', `${base}/shot-1`, { title: 'Departure' }));
  assert.is(patched.node.title, 'Departure');
  assert.is(patched.node.prompt, 'boats leave the harbour', 'untouched fields stay');
  assert.is(patched.node.status, 'draft', 'changed content needs approval again');
  assert.is(patched.project.nodes.find((node) => node.id === 'scene-1')!.note, 'looks right');
  assert.is((await call('PATCH', `${base}/nope`, { title: 'x' })).status, 404);
});

test('only approved nodes render; an attached job drives the node to rendered with its clip, or back on cancel', async () => {
  const project = (await call('POST', '/v1/video-projects', storyboard)).body;
  const base = `/v1/video-projects/${project.id}/nodes`;
  const job = (await call('POST', '/v1/videos/generations', clipBody('shot one'))).body;
  const draft = await call('POST', `${base}/scene-1/attach-job`, { job_id: job.id });
  assert.is(draft.status, 409, 'a draft node does not render');
  await call('POST', `${base}/scene-1/approve`);
  await call('POST', `${base}/shot-1/approve`);
  const attached = assertWire(
    VideoNodeChangeSchema,
    await call('POST', `${base}/shot-1/attach-job`, { job_id: job.id }),
  );
  assert.ok(['rendering', 'rendered'].includes(attached.node.status));
  assert.is(attached.node.job!.id, job.id);
  assert.is(
    (await call('POST', `${base}/scene-1/attach-job`, { job_id: job.id })).status,
    409,
    'one job renders one node',
  );
  await server.app.deps.videos.finished(job.id);
  const after = assertWire(VideoProjectSchema, await call('GET', `/v1/video-projects/${project.id}`));
  const node = after.nodes.find((candidate) => candidate.id === 'shot-1')!;
  assert.is(node.status, 'rendered');
  assert.is(node.job!.status, 'completed');
  assert.ok((await fetch(node.output!.url)).ok, 'the node links its clip');
  assert.is(after.status_counts.rendered, 1);

  const slow = (
    await call(
      'POST',
      '/v1/videos/generations',
      clipBody('slow shot', { metadata: { sim: { seconds_per_second: 3600 } } }),
    )
  ).body;
  assert.is((await call('POST', `${base}/scene-1/attach-job`, { job_id: slow.id })).body.node.status, 'rendering');
  const locked = await call('PATCH', `${base}/scene-1`, { prompt: 'changed' });
  assert.is(locked.status, 409, 'no edits while the node renders');
  await call('POST', `/v1/videos/generations/${slow.id}/cancel`);
  const back = (await call('GET', `/v1/video-projects/${project.id}`)).body.nodes.find(
    (candidate: { id: string }) => candidate.id === 'scene-1',
  );
  assert.is(back.status, 'approved', 'a cancelled job leaves the node approved');
});

test("another account's project, node and job are 404; attach-job needs a job_id", async () => {
  const stranger = await server.account(5);
  const project = (await call('POST', '/v1/video-projects', storyboard)).body;
  for (const [method, path, body] of [
    ['GET', `/v1/video-projects/${project.id}`, undefined],
    ['PATCH', `/v1/video-projects/${project.id}/nodes/shot-1`, { title: 'x' }],
    ['POST', `/v1/video-projects/${project.id}/nodes/scene-1/approve`, undefined],
    ['POST', `/v1/video-projects/${project.id}/nodes/scene-1/attach-job`, { job_id: 'video_x' }],
  ] as const) {
    const res = await call(method, path, body, stranger.token);
    assert.is(res.status, 404, `${method} ${path}`);
  }
  assert.not.ok(
    (await call('GET', '/v1/video-projects', undefined, stranger.token)).body.data.some(
      (p: { id: string }) => p.id === project.id,
    ),
  );
  const theirs = (await call('POST', '/v1/videos/generations', clipBody('theirs'), stranger.token)).body;
  await call('POST', `/v1/video-projects/${project.id}/nodes/scene-1/approve`);
  assert.is(
    (await call('POST', `/v1/video-projects/${project.id}/nodes/scene-1/attach-job`, { job_id: theirs.id })).status,
    404,
    "a stranger's job is not found",
  );
  assert.is((await call('POST', `/v1/video-projects/${project.id}/nodes/scene-1/attach-job`, {})).status, 422);
});

test('the node machine: draft → approved → rendering → rendered | failed; edits send it back to draft', () => {
  let life = initialNodeLife(0);
  assert.is(
    nextNodeState(life, { type: 'APPROVE', at: 1, note: null, dependenciesApproved: false }),
    null,
    'not before its dependencies',
  );
  assert.is(nextNodeState(life, { type: 'ATTACH', at: 1, jobId: 'j' }), null, 'a draft does not render');
  life = nextNodeState(life, { type: 'APPROVE', at: 1, note: 'ok', dependenciesApproved: true })!;
  assert.is(life.state, 'approved');
  life = nextNodeState(life, { type: 'ATTACH', at: 2, jobId: 'j' })!;
  assert.is(life.state, 'rendering');
  assert.is(nextNodeState(life, { type: 'UPDATE', at: 3 }), null, 'no edits while rendering');
  const failed = nextNodeState(life, {
    type: 'JOB_DONE',
    at: 3,
    outcome: 'failed',
    mediaId: null,
    error: { code: 'x', message: 'y' },
  })!;
  assert.is(failed.state, 'failed');
  const rendered = nextNodeState(life, { type: 'JOB_DONE', at: 3, outcome: 'completed', mediaId: 'm', error: null })!;
  assert.equal([rendered.state, rendered.context.mediaId], ['rendered', 'm']);
  const edited = nextNodeState(rendered, { type: 'UPDATE', at: 4 })!;
  assert.equal([edited.state, edited.context.approvedAt, edited.context.mediaId], ['draft', null, null]);
});

test.run();
