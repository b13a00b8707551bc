import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assign, emit, setup } from 'xstate';
import { callTimeline } from '../actors/realtime/call-timeline.js';
import { SimulatedClock } from '../runtime/clock.js';
import { ActorHost } from '../runtime/host/actor-host.js';
import { ActorInspector, statePaths, type ActorViewer } from '../runtime/host/actor-inspector.js';
import { createLogger } from '../runtime/logger.js';
import { MemoryStore } from '../runtime/store/memory-store.js';

const test = suite('inspector: step history, listing and viewers over the actor host');

const job = setup({
  types: { context: {} as { n: number }, events: {} as { type: 'GO' } | { type: 'STOP' } },
}).createMachine({
  id: 'job',
  context: { n: 0 },
  initial: 'idle',
  states: {
    idle: {
      on: {
        GO: { target: 'work', actions: [assign({ n: ({ context }) => context.n + 1 }), emit({ type: 'started' })] },
      },
    },
    work: {
      type: 'parallel',
      states: { a: { initial: 'x', states: { x: {} } }, b: { initial: 'y', states: { y: {} } } },
      on: { STOP: { target: 'done', actions: emit({ type: 'stopped' }) } },
    },
    done: { type: 'final' },
  },
});

function newHost(history = true) {
  const clock = new SimulatedClock(1_000_000);
  const host = new ActorHost(new MemoryStore(), clock, createLogger('silent'), { history });
  host.register({ name: 'job', logic: job });
  return { host, clock, inspector: new ActorInspector(host, clock) };
}

test('state paths cover atomic, nested and parallel values', () => {
  assert.equal(statePaths('idle'), ['idle']);
  assert.equal(statePaths({ running: 'drafting' }), ['running.drafting']);
  assert.equal(statePaths({ work: { a: 'x', b: 'y' } }), ['work.a.x', 'work.b.y']);
  assert.equal(statePaths(undefined), []);
});

test('every commit persists a step with its cause, state, context and last seq; none without history', async () => {
  const { host } = newHost();
  await host.spawn('job', { id: 'j1', ownerId: 'o', input: {} });
  await host.send('j1', { type: 'GO' });
  await host.send('j1', { type: 'STOP' });
  const steps = host.steps('j1', 0, 10);
  assert.equal(
    steps.map((s) => [s.step, s.cause, s.upToSeq, s.status]),
    [
      [1, 'xstate.init', 0, 'active'],
      [2, 'GO', 1, 'active'],
      [3, 'STOP', 2, 'done'],
    ],
  );
  assert.equal(steps[1]!.value, { work: { a: 'x', b: 'y' } });
  assert.equal(steps[1]!.context, { n: 1 });
  assert.is(host.stepAfterSeq('j1', 1)?.step, 2);
  assert.is(host.stepAfterSeq('j1', 3), undefined);
  await host.remove('j1');
  assert.equal(host.steps('j1', 0, 10), [], 'removed with the actor');
  const off = newHost(false);
  await off.host.spawn('job', { id: 'j2', ownerId: 'o', input: {} });
  await off.host.send('j2', { type: 'GO' });
  assert.equal(off.host.steps('j2', 0, 10), []);
});

test('the list filters by machine, state prefix, owner, id and age, and pages with a cursor', async () => {
  const { host, clock, inspector } = newHost();
  for (let i = 0; i < 25; i++) {
    await host.spawn('job', { id: `job_${String(i).padStart(2, '0')}`, ownerId: i % 2 ? 'odd' : 'even', input: {} });
    clock.advance(1000);
  }
  for (let i = 0; i < 5; i++) await host.send(`job_0${i}`, { type: 'GO' });
  assert.is(inspector.list({ state: 'work' }, null, 100).total, 5);
  assert.is(inspector.list({ state: 'work.a' }, null, 100).total, 5);
  assert.is(inspector.list({ state: 'wor' }, null, 100).total, 0, 'a prefix matches whole segments only');
  assert.is(inspector.list({ ownerId: 'odd' }, null, 100).total, 12);
  assert.equal(
    inspector
      .list({ q: 'job_1' }, null, 100)
      .actors.map((a) => a.id)
      .slice(0, 2),
    ['job_10', 'job_11'],
  );
  assert.is(inspector.list({ minAgeMs: 20_000 }, null, 100).total, 6);
  assert.is(inspector.list({ maxAgeMs: 4_000 }, null, 100).total, 4);
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const page = inspector.list({ machine: 'job' }, cursor, 7);
    seen.push(...page.actors.map((a) => a.id));
    cursor = page.next;
  } while (cursor);
  assert.equal(
    seen,
    Array.from({ length: 25 }, (_, i) => `job_${String(i).padStart(2, '0')}`),
  );
});

test('a viewer gets the log, committed steps and received events; the host is observed only while someone views', async () => {
  const { host, inspector } = newHost();
  await host.spawn('job', { id: 'v1', ownerId: 'o', input: {} });
  const got: string[] = [];
  const viewer: ActorViewer = {
    event: (event) => got.push(`event ${event.type}`),
    step: (step, done) => got.push(`step ${step.step}${done ? ' done' : ''}`),
    received: (item) => got.push(`received ${item.type}`),
    end: () => got.push('end'),
  };
  assert.is(inspector.watching, 0);
  const stop = inspector.view('v1', 0, viewer);
  assert.is(inspector.watching, 1);
  await host.send('v1', { type: 'GO' });
  await host.send('v1', { type: 'STOP' });
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(got.includes('received GO') && got.includes('received STOP'), got.join(', '));
  assert.ok(got.includes('step 2') && got.includes('step 3 done'), got.join(', '));
  assert.ok(got.indexOf('event started') < got.indexOf('event stopped'));
  assert.is(got.at(-1), 'end');
  stop();
  assert.is(inspector.watching, 0);
  // Nobody watching: the host has no observer left, so notify is never reached.
  const notify = (host as unknown as { observers: Set<unknown> }).observers;
  assert.is(notify.size, 0);
});

test('a realtime call timeline: speech from steps, responses, barge-ins and hang-up markers from the log', () => {
  const marks = callTimeline(
    [
      { seq: 1, type: 'sessionCreated', ts: 10, data: {} },
      { seq: 2, type: 'audioCommitted', ts: 25, data: { itemId: 'i1', audioEndMs: 900 } },
      { seq: 3, type: 'responseStarted', ts: 30, data: { responseId: 'r1' } },
      {
        seq: 4,
        type: 'responseDone',
        ts: 45,
        data: { responseId: 'r1', status: 'cancelled', cancelReason: 'turn_detected' },
      },
      { seq: 5, type: 'responseStarted', ts: 50, data: { responseId: 'r2' } },
      { seq: 6, type: 'responseDone', ts: 60, data: { responseId: 'r2', status: 'completed', cancelReason: null } },
      { seq: 7, type: 'ending', ts: 61, data: { reason: 'farewell' } },
      { seq: 8, type: 'closed', ts: 70, data: { reason: 'hang_up' } },
    ],
    [
      { step: 2, ts: 20, cause: 'SPEECH_STARTED', upToSeq: 1, status: 'active', value: 'open', context: {} },
      { step: 3, ts: 25, cause: 'SPEECH_STOPPED', upToSeq: 2, status: 'active', value: 'open', context: {} },
      { step: 4, ts: 40, cause: 'SPEECH_STARTED', upToSeq: 3, status: 'active', value: 'open', context: {} },
    ],
  );
  assert.equal(
    marks.map((m) => m.kind),
    [
      'speech_started',
      'speech_stopped',
      'response_started',
      'speech_started',
      'barge_in',
      'response_started',
      'response_done',
      'hang_up',
      'closed',
    ],
  );
});

test.run();
