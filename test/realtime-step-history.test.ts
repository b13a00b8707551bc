import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isDelta, type StoredStep } from '../runtime/host/step-delta.js';
import { startServer, type TestServer } from './harness.js';
import { connectCall } from './realtime-client.js';

let server: TestServer;
const test = suite('realtime step history: a long call read back from changes is the call as committed');

test.before(async () => {
  server = await startServer();
});
test.after(async () => {
  await server.close();
});

test('every step of a call with answers, truncations and deletions reads back as committed', async () => {
  const { host, store } = server.app.deps;
  // The full steps as they land, frozen as JSON then (key order included), per actor.
  const seen = new Map<string, string[]>();
  host.observe((transition) => {
    if (!transition.step || !transition.machine.includes('realtime')) return;
    const steps = seen.get(transition.id) ?? [];
    steps[transition.step.step - 1] = JSON.stringify(transition.step);
    seen.set(transition.id, steps);
  });
  const account = await server.account();
  const client = await connectCall(server, account.token);
  await client.next('session.created');
  for (let turn = 0; turn < 14; turn++) {
    client.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `Tell me about turn ${turn}.` }] },
    });
    const said = (await client.next('conversation.item.added')).item;
    client.send({ type: 'response.create' });
    const done = await client.next('response.done', 10_000);
    const answer = done.response.output[0];
    if (turn % 4 === 1) {
      client.send({ type: 'conversation.item.truncate', item_id: answer.id, content_index: 0, audio_end_ms: 20 });
      await client.next('conversation.item.truncated');
    }
    if (turn % 5 === 2) {
      client.send({ type: 'conversation.item.delete', item_id: said.id });
      await client.next('conversation.item.deleted');
    }
  }
  const [id, committed] = [...seen].find(([, steps]) => steps.length > 40)!;
  assert.ok(
    committed.every((step) => step !== undefined),
    'every step observed',
  );
  assert.equal(
    host.steps(id, 0, 10_000).map((step) => JSON.stringify(step)),
    committed,
  );
  assert.equal(
    host.steps(id, 37, 5).map((step) => JSON.stringify(step)),
    committed.slice(37, 42),
  );
  const stored = [...store.table<StoredStep>('actor_steps').getRange({ start: [id, 0], end: [id, 1e9] })];
  assert.ok(stored.filter(({ value }) => isDelta(value)).length > stored.length / 2, 'mostly changes');
  client.close();
});

test.run();
