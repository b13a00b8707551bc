import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor, fromPromise, waitFor } from 'xstate';
import {
  PAST_DUE_GRACE_MS,
  subscriptionMachine,
  type GrantsInput,
  type ProviderSnapshot,
} from '../actors/payments/subscription-machine.js';

const test = suite('subscription machine: states follow verified provider snapshots; grants follow the states');

const T0 = Date.UTC(2026, 6, 1);
const PERIOD_END = T0 + 30 * 86_400_000;

let seq = 0;
const snapshot = (changes: Partial<ProviderSnapshot> = {}): ProviderSnapshot => ({
  eventId: `evt_${++seq}`,
  created: T0 + seq * 1000,
  plan: 'plus-2026-07',
  status: 'active',
  cancelAtPeriodEnd: false,
  currentPeriodEnd: PERIOD_END,
  deleted: false,
  ...changes,
});

function start(first = snapshot(), options: { failGrants?: boolean } = {}) {
  const grants: GrantsInput[] = [];
  const machine = subscriptionMachine.provide({
    actors: {
      applyGrants: fromPromise<void, GrantsInput>(({ input }) => {
        grants.push(input);
        return options.failGrants ? Promise.reject(new Error('store down')) : Promise.resolve();
      }),
    },
  });
  const actor = createActor(machine, {
    input: { id: 'sub_1', accountId: 'acct_1', providerSubscriptionId: 'sub_p1', customerId: 'cus_1', first, at: T0 },
  });
  actor.start();
  const settle = () => waitFor(actor, (s) => s.value !== 'syncing');
  return { actor, grants, settle };
}

test('a new active subscription grants its plan until the period end', async () => {
  const { actor, grants, settle } = start();
  await settle();
  assert.is(actor.getSnapshot().value, 'active');
  assert.equal(grants, [
    { accountId: 'acct_1', subscriptionId: 'sub_1', plan: { id: 'plus-2026-07', until: PERIOD_END } },
  ]);
  assert.equal(actor.getSnapshot().context.deadlines, {});
});

test('cancel at period end: grants stay, the lapse deadline is the period end, the timer ends it', async () => {
  const { actor, grants, settle } = start();
  await settle();
  actor.send({ type: 'PROVIDER_SNAPSHOT', ...snapshot({ cancelAtPeriodEnd: true }) });
  await settle();
  assert.is(actor.getSnapshot().value, 'cancel_at_period_end');
  assert.equal(actor.getSnapshot().context.deadlines, { lapses: PERIOD_END });
  assert.equal(grants.at(-1)!.plan, { id: 'plus-2026-07', until: PERIOD_END });
  actor.send({ type: 'TIMER', name: 'lapses' });
  await waitFor(actor, (s) => s.status === 'done');
  assert.is(actor.getSnapshot().value, 'ended');
  assert.is(grants.at(-1)!.plan, null);
});

test('past due keeps grants through the grace; a renewal brings it back to active', async () => {
  const { actor, grants, settle } = start();
  await settle();
  actor.send({ type: 'PROVIDER_SNAPSHOT', ...snapshot({ status: 'past_due' }) });
  await settle();
  assert.is(actor.getSnapshot().value, 'past_due');
  assert.equal(grants.at(-1)!.plan, { id: 'plus-2026-07', until: PERIOD_END + PAST_DUE_GRACE_MS });
  assert.equal(actor.getSnapshot().context.deadlines, { lapses: PERIOD_END + PAST_DUE_GRACE_MS });
  actor.send({
    type: 'PROVIDER_SNAPSHOT',
    ...snapshot({ status: 'active', currentPeriodEnd: PERIOD_END + 30 * 86_400_000 }),
  });
  await settle();
  assert.is(actor.getSnapshot().value, 'active');
  assert.equal(actor.getSnapshot().context.deadlines, {});
});

test('stale and repeated snapshots are ignored', async () => {
  const { actor, grants, settle } = start();
  await settle();
  const newer = snapshot({ plan: 'team-2026-07' });
  actor.send({ type: 'PROVIDER_SNAPSHOT', ...newer });
  await settle();
  const writes = grants.length;
  actor.send({ type: 'PROVIDER_SNAPSHOT', ...newer });
  actor.send({ type: 'PROVIDER_SNAPSHOT', ...snapshot({ plan: 'plus-2026-07', created: T0 }) });
  await settle();
  assert.is(actor.getSnapshot().context.plan, 'team-2026-07');
  assert.is(grants.length, writes);
});

test('requests are pending until a snapshot confirms them', async () => {
  const { actor, settle } = start();
  await settle();
  actor.send({ type: 'REQUESTED', action: 'change', plan: 'team-2026-07', at: T0 + 5 });
  assert.equal(actor.getSnapshot().context.pending, { action: 'change', plan: 'team-2026-07', at: T0 + 5 });
  actor.send({ type: 'PROVIDER_SNAPSHOT', ...snapshot({ plan: 'plus-2026-07' }) });
  await settle();
  assert.ok(actor.getSnapshot().context.pending, 'not confirmed by an unrelated snapshot');
  actor.send({ type: 'PROVIDER_SNAPSHOT', ...snapshot({ plan: 'team-2026-07' }) });
  await settle();
  assert.is(actor.getSnapshot().context.pending, null);
});

test('a deletion ends it at once; a failed grants write still follows the provider', async () => {
  const { actor, grants } = start(snapshot(), { failGrants: true });
  await waitFor(actor, (s) => s.value !== 'syncing');
  assert.is(actor.getSnapshot().value, 'active');
  actor.send({ type: 'PROVIDER_SNAPSHOT', ...snapshot({ deleted: true, status: 'canceled' }) });
  await waitFor(actor, (s) => s.status === 'done');
  assert.is(grants.at(-1)!.plan, null);
});

test.run();
