import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { stateOf, type SessionSnapshot } from '../actors/sessions/session-record.js';
import { SimulatedClock } from '../runtime/clock.js';
import { ADMIN_KEY, startServer, tempDataDir, type TestAccount, type TestServer } from './harness.js';
import { sample } from './metrics-sample.js';

const test = suite('chat sessions: completed sessions leave no live actor behind, before and after a restart');
const dataDir = tempDataDir();
let server: TestServer;
let account: TestAccount;
const ids: string[] = [];
const SESSIONS = 300;

test.before(async () => {
  server = await startServer({ SVC_DATA_DIR: dataDir });
  account = await server.account(50);
});
test.after(async () => {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** One turn of the event loop: the host parks idle actors once the work of the turn is over. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function actorFigures(): Promise<{ inMemory: number; parked: number }> {
  await turn();
  const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  const text = await res.text();
  const inMemory = text
    .split('\n')
    .filter((line) => line.startsWith('svc_actors_live{machine="chat-session"'))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  assert.is(
    inMemory,
    server.app.deps.host.registry.list('chat-session').length,
    'the metric counts what the registry holds',
  );
  return { inMemory, parked: sample(text, 'svc_actors_parked', { machine: 'chat-session' }) ?? 0 };
}

test(`${SESSIONS} completed sessions are parked, not held in memory`, async () => {
  const { host } = server.app.deps;
  for (let start = 0; start < SESSIONS; start += 30) {
    await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const created = await server.request('POST', '/v1/chat/sessions', {
          token: account.token,
          body: { model: 'pro-1', messages: [{ role: 'user', content: `Session ${start + i}` }], max_tokens: 20 },
        });
        assert.is(created.status, 201);
        ids.push(created.body.id);
        await host.waitFor(
          created.body.id,
          (snapshot) => stateOf(snapshot as unknown as SessionSnapshot).state !== 'running',
        );
      }),
    );
  }
  assert.equal(await actorFigures(), { inMemory: 0, parked: SESSIONS });
  const one = await server.request('GET', `/v1/chat/sessions/${ids[7]}`, { token: account.token });
  assert.is(one.body.state, 'completed');
  const page = await server.request('GET', `/v1/chat/sessions/${ids[7]}/events-page?after=-1`, {
    token: account.token,
  });
  assert.is(page.body.events.at(-1).type, 'completed', 'its events are all there');
  assert.equal(await actorFigures(), { inMemory: 0, parked: SESSIONS }, 'reading a session does not bring it back');
});

test('after a restart they stay parked; an acknowledgement wakes one and it finishes', async () => {
  await server.close();
  server = await startServer({ SVC_DATA_DIR: dataDir });
  assert.equal(await actorFigures(), { inMemory: 0, parked: SESSIONS });
  const ack = await server.request('POST', `/v1/chat/sessions/${ids[0]}/acknowledge`, { token: account.token });
  assert.is(ack.status, 200);
  assert.is(ack.body.state, 'acknowledged');
  const refused = await server.request('POST', `/v1/chat/sessions/${ids[0]}/acknowledge`, { token: account.token });
  assert.is(refused.status, 409);
  assert.equal(await actorFigures(), { inMemory: 0, parked: SESSIONS - 1 });
});

test('a session awaiting approval waits parked and runs when approved', async () => {
  const created = await server.request('POST', '/v1/chat/sessions', {
    token: account.token,
    body: {
      model: 'pro-1',
      messages: [{ role: 'user', content: 'Approve me' }],
      max_tokens: 20,
      require_approval: true,
    },
  });
  assert.is(created.body.state, 'awaiting_approval');
  assert.equal(await actorFigures(), { inMemory: 0, parked: SESSIONS });
  const approved = await server.request('POST', `/v1/chat/sessions/${created.body.id}/approve`, {
    token: account.token,
  });
  assert.is(approved.status, 200);
  await server.app.deps.host.waitFor(
    created.body.id,
    (snapshot) => stateOf(snapshot as unknown as SessionSnapshot).state === 'completed',
  );
  assert.equal(await actorFigures(), { inMemory: 0, parked: SESSIONS }, 'completed, it is parked again');
});

test.run();

const retention = suite('chat sessions: an ended session keeps its events for the retention, then only its record');

retention(
  'a sweep deletes the events of sessions ended before the retention; the session and its result stay',
  async () => {
    const clock = new SimulatedClock();
    // The sweep's own timer (daily) stays out of the way: the test runs one sweep when it wants
    // (the timer itself is covered by the retention unit tests).
    const local = await startServer({ SVC_ACTOR_RETENTION_S: '3600', SVC_ACTOR_RETENTION_SWEEP_S: '86400' }, { clock });
    try {
      const owner = await local.account(5);
      const ended: string[] = [];
      for (const content of ['Keep my answer', 'And mine']) {
        const created = await local.request('POST', '/v1/chat/sessions', {
          token: owner.token,
          body: { model: 'pro-1', messages: [{ role: 'user', content }], max_tokens: 20 },
        });
        await local.app.deps.host.waitFor(
          created.body.id,
          (snapshot) => stateOf(snapshot as unknown as SessionSnapshot).state === 'completed',
        );
        assert.is(
          (await local.request('POST', `/v1/chat/sessions/${created.body.id}/acknowledge`, { token: owner.token }))
            .status,
          200,
        );
        ended.push(created.body.id);
        clock.advance(1_800_000);
      }
      const events = async (id: string) =>
        (await local.request('GET', `/v1/chat/sessions/${id}/events-page?after=-1`, { token: owner.token })).body
          .events as unknown[];
      assert.ok((await events(ended[0]!)).length > 3);
      // A minute past an hour after the first ended (half an hour after the second): a sweep drops only the first's events.
      clock.advance(60_000);
      assert.is(await local.app.retention.sweep(), 1);
      assert.equal(await events(ended[0]!), []);
      assert.ok((await events(ended[1]!)).length > 3, 'ended within the retention: kept');
      const session = await local.request('GET', `/v1/chat/sessions/${ended[0]}`, { token: owner.token });
      assert.is(session.body.state, 'acknowledged');
      assert.is(
        (await local.request('GET', `/v1/chat/sessions/${ended[0]}/result`, { token: owner.token })).status,
        200,
        'the answer stays',
      );
    } finally {
      await local.close();
    }
  },
);

retention.run();
