import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor, fromPromise, waitFor } from 'xstate';
import type { VideoSpec } from '../backends/video-generation.js';
import { MAX_SUBMIT_ATTEMPTS, videoJobMachine } from '../actors/video/video-job-machine.js';
import { CANCELLABLE_STATES, topState } from '../actors/video/video-job-states.js';
import type { FinishInput, PollOutput, SubmitOutput, VideoJobInput } from '../actors/video/video-job-types.js';

const test = suite('video job machine: states, cancel in each, one finish per job');

const spec: VideoSpec = {
  prompt: 'p',
  width: 320,
  height: 240,
  durationSeconds: 1,
  tier: 'standard',
  seed: 1,
  script: null,
};
const input: VideoJobInput = {
  id: 'video_1',
  accountId: 'acct',
  tokenId: null,
  model: 'pro-1',
  quality: null,
  spec,
  backend: 'sim',
  costMicros: 100,
  holdMicros: 125,
  mediaId: 'vidm_1',
  at: 0,
  pollMs: 10,
};

/** A promise the test settles by hand, so the machine can be held in any step. */
function gate<T>() {
  let open!: (value: T) => void;
  let fail!: (error: unknown) => void;
  const promise = new Promise<T>((resolve, reject) => ((open = resolve), (fail = reject)));
  return { promise, open, fail };
}

/** The machine with effects the test controls; every finish call is recorded. */
function harness() {
  // One gate per submit attempt; the first exists up front.
  const submits = [gate<SubmitOutput>()];
  const submit = submits[0]!;
  let submitCalls = 0;
  const polls: ReturnType<typeof gate<PollOutput>>[] = [];
  const store = gate<{ bytes: number; contentType: string; at: number }>();
  const finishes: FinishInput[] = [];
  const logic = videoJobMachine.provide({
    actors: {
      submit: fromPromise(() => (submits[submitCalls++] ??= gate<SubmitOutput>()).promise),
      poll: fromPromise(() => {
        const next = gate<PollOutput>();
        polls.push(next);
        return next.promise;
      }),
      store: fromPromise(() => store.promise),
      finish: fromPromise(({ input }: { input: FinishInput }) => {
        finishes.push(input);
        return Promise.resolve({ priceMicros: input.outcome === 'completed' ? 125 : 0, at: 1 });
      }),
    },
  });
  const emitted: string[] = [];
  const actor = createActor(logic, { input });
  actor.on('*', (event) => emitted.push(event.type));
  actor.start();
  const state = () => topState(actor.getSnapshot().value);
  const tick = () => new Promise((resolve) => setImmediate(resolve));
  return { actor, submit, submits, polls, store, finishes, emitted, state, tick };
}

test('the happy path: queued → submitting → running (progress) → storing → settling → completed, one finish', async () => {
  const h = harness();
  assert.is(h.state(), 'queued');
  h.actor.send({ type: 'START', at: 1 });
  assert.is(h.state(), 'submitting');
  h.submit.open({ remote: { id: 'r', startedAt: 1 }, at: 1 });
  await h.tick();
  assert.is(h.state(), 'running');
  h.polls[0]!.open({ state: 'running', progress: 40, at: 2 });
  await h.tick();
  assert.equal(h.actor.getSnapshot().context.deadlines, { poll: 12 }, 'the next poll is a deadline in context');
  assert.is(h.actor.getSnapshot().context.progress, 40);
  h.actor.send({ type: 'TIMER', name: 'poll' });
  h.polls[1]!.open({ state: 'completed', costMicros: 100, at: 3 });
  await h.tick();
  assert.is(h.state(), 'storing');
  h.store.open({ bytes: 10, contentType: 'video/mp4', at: 4 });
  await waitFor(h.actor, (snapshot) => snapshot.status === 'done');
  assert.is(h.state(), 'completed');
  assert.equal(
    h.finishes.map((finish) => finish.outcome),
    ['completed'],
  );
  assert.equal(h.emitted, ['queued', 'started', 'progress', 'completed']);
  assert.equal(h.actor.getSnapshot().context.deadlines, {}, 'no deadline left');
});

test('CANCEL is taken in queued, submitting and running (waiting or polling), and refused once the clip is made', async () => {
  const cancelIn = async (reach: (h: ReturnType<typeof harness>) => Promise<void>) => {
    const h = harness();
    await reach(h);
    const where = h.state();
    const accepted = h.actor.getSnapshot().can({ type: 'CANCEL', at: 9, reason: null });
    if (accepted) {
      h.actor.send({ type: 'CANCEL', at: 9, reason: null });
      await waitFor(h.actor, (snapshot) => snapshot.status === 'done');
    }
    return { where, accepted, end: h.state(), finishes: h.finishes.map((finish) => finish.outcome) };
  };
  const start = (h: ReturnType<typeof harness>) => h.actor.send({ type: 'START', at: 1 });
  const toRunning = async (h: ReturnType<typeof harness>) => {
    start(h);
    h.submit.open({ remote: { id: 'r', startedAt: 1 }, at: 1 });
    await h.tick();
  };
  const toStoring = async (h: ReturnType<typeof harness>) => {
    await toRunning(h);
    h.polls[0]!.open({ state: 'completed', costMicros: 100, at: 2 });
    await h.tick();
  };
  assert.equal(await cancelIn(() => Promise.resolve()), {
    where: 'queued',
    accepted: true,
    end: 'cancelled',
    finishes: ['cancelled'],
  });
  assert.equal(await cancelIn((h) => Promise.resolve(start(h))), {
    where: 'submitting',
    accepted: true,
    end: 'cancelled',
    finishes: ['cancelled'],
  });
  assert.equal(await cancelIn(toRunning), {
    where: 'running',
    accepted: true,
    end: 'cancelled',
    finishes: ['cancelled'],
  });
  const waiting = async (h: ReturnType<typeof harness>) => {
    await toRunning(h);
    h.polls[0]!.open({ state: 'running', progress: 10, at: 2 });
    await h.tick();
  };
  assert.equal(await cancelIn(waiting), {
    where: 'running',
    accepted: true,
    end: 'cancelled',
    finishes: ['cancelled'],
  });
  assert.equal(await cancelIn(toStoring), { where: 'storing', accepted: false, end: 'storing', finishes: [] });
  assert.equal([...CANCELLABLE_STATES], ['queued', 'submitting', 'running']);
});

test('a failed poll, a refused submit and polls that keep failing end in failed with a finish that charges nothing', async () => {
  const refused = harness();
  refused.actor.send({ type: 'START', at: 1 });
  refused.submit.fail(Object.assign(new Error('no'), { kind: 'upstream_error' }));
  await waitFor(refused.actor, (snapshot) => snapshot.status === 'done');
  assert.is(refused.state(), 'failed');
  assert.equal(refused.actor.getSnapshot().context.error, { code: 'upstream_error', message: 'no' });
  assert.equal(
    refused.finishes.map((finish) => finish.outcome),
    ['failed'],
  );

  const failing = harness();
  failing.actor.send({ type: 'START', at: 1 });
  failing.submit.open({ remote: { id: 'r', startedAt: 1 }, at: 1 });
  await failing.tick();
  failing.polls[0]!.open({ state: 'failed', code: 'generation_failed', message: 'bad frame', at: 2 });
  await waitFor(failing.actor, (snapshot) => snapshot.status === 'done');
  assert.is(failing.actor.getSnapshot().context.error?.code, 'generation_failed');

  const flaky = harness();
  flaky.actor.send({ type: 'START', at: 1 });
  flaky.submit.open({ remote: { id: 'r', startedAt: 1 }, at: 1 });
  await flaky.tick();
  for (let i = 0; i < 5; i++) {
    flaky.polls[i]!.open({ state: 'retry', message: 'busy', at: 2 + i });
    await flaky.tick();
    if (i < 4) {
      assert.is(flaky.state(), 'running', 'a retryable poll failure waits and polls again');
      flaky.actor.send({ type: 'TIMER', name: 'poll' });
    }
  }
  await waitFor(flaky.actor, (snapshot) => snapshot.status === 'done');
  assert.is(flaky.actor.getSnapshot().context.error?.code, 'upstream_unavailable');
  assert.equal(
    flaky.finishes.map((finish) => finish.outcome),
    ['failed'],
  );
});

test('a busy backend at submit: the job waits (a deadline) and asks again, then runs; past the bound it fails and charges nothing', async () => {
  const h = harness();
  h.actor.send({ type: 'START', at: 1 });
  h.submits[0]!.open({ retry: 'busy', retryAfterMs: null, at: 1 });
  await h.tick();
  assert.equal(h.actor.getSnapshot().value, { submitting: 'backoff' });
  assert.equal(h.actor.getSnapshot().context.deadlines, { submit: 11 }, 'the first wait is one poll interval');
  h.actor.send({ type: 'TIMER', name: 'poll' });
  assert.equal(h.actor.getSnapshot().value, { submitting: 'backoff' }, 'only its own timer moves it');
  h.actor.send({ type: 'TIMER', name: 'submit' });
  h.submits[1]!.open({ retry: 'busy', retryAfterMs: 5_000, at: 20 });
  await h.tick();
  assert.equal(
    h.actor.getSnapshot().context.deadlines,
    { submit: 5_020 },
    "the backend's Retry-After wins when longer",
  );
  h.actor.send({ type: 'TIMER', name: 'submit' });
  h.submits[2]!.open({ remote: { id: 'r', startedAt: 30 }, at: 30 });
  await h.tick();
  assert.is(h.state(), 'running');
  assert.equal(
    h.emitted.filter((type) => type === 'started'),
    ['started'],
    'started once, however many attempts',
  );

  const down = harness();
  down.actor.send({ type: 'START', at: 1 });
  for (let i = 0; i < MAX_SUBMIT_ATTEMPTS; i++) {
    down.submits[i]!.open({ retry: 'down', retryAfterMs: null, at: 1 + i });
    await down.tick();
    if (i < MAX_SUBMIT_ATTEMPTS - 1) down.actor.send({ type: 'TIMER', name: 'submit' });
  }
  await waitFor(down.actor, (snapshot) => snapshot.status === 'done');
  assert.is(down.state(), 'failed');
  assert.is(down.actor.getSnapshot().context.error?.code, 'upstream_unavailable');
  assert.equal(
    down.finishes.map((finish) => finish.outcome),
    ['failed'],
  );

  const cancelled = harness();
  cancelled.actor.send({ type: 'START', at: 1 });
  cancelled.submits[0]!.open({ retry: 'busy', retryAfterMs: null, at: 1 });
  await cancelled.tick();
  cancelled.actor.send({ type: 'CANCEL', at: 2, reason: null });
  await waitFor(cancelled.actor, (snapshot) => snapshot.status === 'done');
  assert.is(cancelled.state(), 'cancelled');
  assert.equal(cancelled.actor.getSnapshot().context.deadlines, {}, 'no submit deadline is left armed');
});

test.run();
