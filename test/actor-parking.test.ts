import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assign, emit, setup } from 'xstate';
import { ActorHost } from '../runtime/host/actor-host.js';
import { ActorRetention } from '../runtime/host/actor-retention.js';
import { SimulatedClock } from '../runtime/clock.js';
import { createLogger } from '../runtime/logger.js';
import { MemoryStore } from '../runtime/store/memory-store.js';
import type { Store } from '../runtime/store/store.js';

/** A ticket that waits for the client (`open`), may be stamped while open, and ends when closed; `open` carries a reminder deadline. */
const ticket = setup({
  types: {
    context: {} as { stamps: number; deadlines: { remind?: number | null } },
    events: {} as
      { type: 'STAMP' } | { type: 'WORK' } | { type: 'DONE' } | { type: 'CLOSE' } | { type: 'TIMER'; name: string },
    input: {} as { remindAt: number | null },
  },
}).createMachine({
  context: ({ input }) => ({ stamps: 0, deadlines: { remind: input.remindAt } }),
  initial: 'open',
  states: {
    open: {
      on: {
        STAMP: {
          actions: [
            assign({ stamps: ({ context }) => context.stamps + 1 }),
            emit(({ context }) => ({ type: 'stamped', stamps: context.stamps })),
          ],
        },
        WORK: 'working',
        CLOSE: 'closed',
        TIMER: { actions: [assign({ deadlines: () => ({}) }), emit({ type: 'reminded' })] },
      },
    },
    working: { on: { DONE: 'open' } },
    closed: { type: 'final', entry: emit({ type: 'closed' }) },
  },
});

const logger = createLogger('silent');
/** One turn of the event loop: the host parks idle actors after the work of the current turn. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

function hostOn(store: Store, clock: SimulatedClock, options: { history?: boolean; forget?: boolean } = {}): ActorHost {
  const host = new ActorHost(store, clock, logger, { history: options.history ?? false });
  host.register({
    name: 'ticket',
    logic: ticket,
    parks: (persisted) => (persisted as { value: unknown }).value === 'open',
    forgetAfterRetention: options.forget ?? false,
  });
  return host;
}

const inMemory = (host: ActorHost) => host.registry.list('ticket').map((actor) => actor.id);

const parking = suite('actor host: actors waiting only for a client leave memory on a running server');

parking('an idle actor in a parking state leaves memory and the next event brings it back', async () => {
  const clock = new SimulatedClock();
  const host = hostOn(new MemoryStore(), clock);
  await host.spawn('ticket', { id: 't1', ownerId: 'acct', input: { remindAt: null } });
  await turn();
  assert.equal(inMemory(host), [], 'parked once idle');
  assert.is(host.parkedCount, 1);
  assert.ok(host.isLive('t1'), 'still unfinished and reachable');
  assert.is(
    host.find('t1', 'acct')!.snapshot && (host.find('t1', 'acct')!.snapshot as { value: string }).value,
    'open',
  );
  assert.ok(await host.send('t1', { type: 'STAMP' }));
  assert.equal(
    host.events('t1', 0, 10).map((e) => [e.seq, e.type]),
    [[1, 'stamped']],
  );
  await turn();
  assert.equal(inMemory(host), [], 'parked again after the event');
  assert.is(
    (host.find('t1', 'acct')!.snapshot as { context: { stamps: number } }).context.stamps,
    1,
    'nothing lost across parking',
  );
  await host.send('t1', { type: 'STAMP' });
  assert.equal(
    host.events('t1', 0, 10).map((e) => e.seq),
    [1, 2],
    'the log continues gap-free',
  );
  await host.close();
});

parking('an actor at work stays in memory; it parks once back in a parking state', async () => {
  const host = hostOn(new MemoryStore(), new SimulatedClock());
  await host.spawn('ticket', { id: 't2', ownerId: 'acct', input: { remindAt: null } });
  await host.send('t2', { type: 'WORK' });
  await turn();
  assert.equal(inMemory(host), ['t2']);
  assert.is(host.parkedCount, 0);
  await host.send('t2', { type: 'DONE' });
  await turn();
  assert.equal(inMemory(host), []);
  await host.close();
});

parking('a check followed by a send rehydrates once, and a refused check parks again', async () => {
  const host = hostOn(new MemoryStore(), new SimulatedClock());
  await host.spawn('ticket', { id: 't3', ownerId: 'acct', input: { remindAt: null } });
  await turn();
  assert.not.ok(host.accepts('t3', { type: 'DONE' }), 'DONE is not taken while open');
  assert.equal(inMemory(host), ['t3'], 'woken by the check');
  await turn();
  assert.equal(inMemory(host), [], 'parked again: nothing came of the check');
  assert.ok(host.accepts('t3', { type: 'CLOSE' }));
  await host.send('t3', { type: 'CLOSE' });
  assert.ok(host.find('t3', 'acct')!.done);
  assert.not.ok(host.isLive('t3'));
  await host.close();
});

parking('a follower of a parked actor gets its history, then live events when it is woken, then the end', async () => {
  const host = hostOn(new MemoryStore(), new SimulatedClock());
  await host.spawn('ticket', { id: 't4', ownerId: 'acct', input: { remindAt: null } });
  await host.send('t4', { type: 'STAMP' });
  await turn();
  const seen: string[] = [];
  let ended = false;
  host.follow('t4', 0, { event: (e) => seen.push(`${e.seq}:${e.type}`), end: () => (ended = true) });
  assert.equal(inMemory(host), [], 'following does not wake it');
  assert.equal(seen, ['1:stamped']);
  await host.send('t4', { type: 'STAMP' });
  await host.send('t4', { type: 'CLOSE' });
  await turn();
  assert.equal(seen, ['1:stamped', '2:stamped', '3:closed']);
  assert.ok(ended);
  await host.close();
});

parking('waiting on or inspecting an actor holds it in memory until released', async () => {
  const host = hostOn(new MemoryStore(), new SimulatedClock());
  await host.spawn('ticket', { id: 't5', ownerId: 'acct', input: { remindAt: null } });
  await turn();
  const stop = host.inspect('t5', () => {});
  assert.ok(stop);
  await turn();
  assert.equal(inMemory(host), ['t5'], 'held by the inspector');
  const waited = host.waitFor('t5', (snapshot) => snapshot.value === 'working');
  stop();
  await turn();
  assert.equal(inMemory(host), ['t5'], 'still held by the waiter');
  await host.send('t5', { type: 'WORK' });
  await waited;
  await host.send('t5', { type: 'DONE' });
  await turn();
  assert.equal(inMemory(host), [], 'parked once nobody holds it');
  await host.close();
});

parking("a parked actor's deadline stays armed on a running server and wakes it", async () => {
  const clock = new SimulatedClock();
  const host = hostOn(new MemoryStore(), clock);
  await host.spawn('ticket', { id: 't6', ownerId: 'acct', input: { remindAt: clock.now() + 1_000 } });
  await turn();
  assert.equal(inMemory(host), []);
  clock.advance(1_000);
  await turn();
  await turn();
  assert.equal(
    host.events('t6', 0, 10).map((e) => e.type),
    ['reminded'],
  );
  assert.equal(inMemory(host), [], 'parked again after the deadline');
  await host.close();
});

parking("in cluster mode a parked actor is this node's only while this node serves its owner", async () => {
  const store = new MemoryStore();
  let served = true;
  const host = new ActorHost(store, new SimulatedClock(), logger, { serves: () => served });
  host.register({
    name: 'ticket',
    logic: ticket,
    parks: (persisted) => (persisted as { value: unknown }).value === 'open',
  });
  await host.spawn('ticket', { id: 't7', ownerId: 'acct', input: { remindAt: null } });
  await turn();
  assert.ok(host.isLive('t7'));
  served = false;
  assert.not.ok(host.isLive('t7'), 'another node serves the account now');
  assert.not.ok(await host.send('t7', { type: 'STAMP' }));
  assert.is(host.parkedCount, 0);
  await host.close();
});

parking.run();

const retention = suite('actor host: ended actors keep their history for the retention, then it is deleted');

async function endedTicket(host: ActorHost, id: string): Promise<void> {
  await host.spawn('ticket', { id, ownerId: 'acct', input: { remindAt: null } });
  await host.send(id, { type: 'STAMP' });
  await host.send(id, { type: 'CLOSE' });
}

retention(
  'logs and steps of actors ended before the cut are deleted; their records stay; later ones keep all',
  async () => {
    const clock = new SimulatedClock();
    const host = hostOn(new MemoryStore(), clock, { history: true });
    await endedTicket(host, 'old');
    clock.advance(60_000);
    await endedTicket(host, 'new');
    await host.spawn('ticket', { id: 'open', ownerId: 'acct', input: { remindAt: null } });
    await host.send('open', { type: 'STAMP' });
    assert.is(host.events('old', 0, 10).length, 2);
    assert.ok(host.steps('old', 0, 10).length > 0);
    assert.is(await host.expireEnded(clock.now() - 30_000, 100), 1);
    assert.equal(host.events('old', 0, 10), [], 'log deleted');
    assert.equal(host.steps('old', 0, 10), [], 'steps deleted');
    assert.ok(host.find('old', 'acct')?.done, 'the record (final state) stays');
    assert.is(host.events('new', 0, 10).length, 2, 'ended after the cut: kept');
    assert.is(host.events('open', 0, 10).length, 1, 'unfinished: never expired');
    assert.is(await host.expireEnded(clock.now() - 30_000, 100), 0, 'nothing twice');
    await host.close();
  },
);

retention('machines that forget after the retention lose their records too', async () => {
  const clock = new SimulatedClock();
  const host = hostOn(new MemoryStore(), clock, { history: true, forget: true });
  await endedTicket(host, 'gone');
  clock.advance(10);
  assert.is(await host.expireEnded(clock.now(), 100), 1);
  assert.is(host.find('gone', 'acct'), undefined);
  assert.equal(host.list('ticket', 'acct', 10), []);
  await host.close();
});

retention('a sweep expires only what ended before the retention, in batches, until nothing is due', async () => {
  const clock = new SimulatedClock();
  const host = hostOn(new MemoryStore(), clock, { history: true });
  for (let i = 0; i < 7; i++) await endedTicket(host, `t${i}`);
  const sweeps = new ActorRetention(host, clock, logger, { retentionMs: 3_600_000, everyMs: 86_400_000, batch: 3 });
  clock.advance(3_600_000);
  assert.is(await sweeps.sweep(), 0, 'ended exactly a retention ago: kept');
  assert.is(host.events('t0', 0, 10).length, 2);
  clock.advance(1);
  assert.is(await sweeps.sweep(), 7, 'three batches: 3, 3 and 1');
  for (let i = 0; i < 7; i++) assert.equal(host.events(`t${i}`, 0, 10), []);
  await host.close();
});

retention('the sweep runs on the clock every period once started, and not after stop', async () => {
  const clock = new SimulatedClock();
  const host = hostOn(new MemoryStore(), clock, { history: true });
  await endedTicket(host, 'due');
  const sweeps = new ActorRetention(host, clock, logger, { retentionMs: 1_000, everyMs: 60_000 });
  sweeps.start();
  clock.advance(60_000);
  // The timer started a sweep as the clock passed its time (a minute after the end): this joins it.
  assert.is(await sweeps.sweep(), 1);
  assert.equal(host.events('due', 0, 10), []);
  await sweeps.stop();
  await endedTicket(host, 'later');
  clock.advance(3_600_000);
  await new Promise((resolve) => setImmediate(resolve));
  assert.is(host.events('later', 0, 10).length, 2, 'stopped: no sweep ran');
  await host.close();
});

retention('a store written before the ended index existed gets it built on the first boot', async () => {
  const clock = new SimulatedClock();
  const store = new MemoryStore();
  const first = hostOn(store, clock);
  await endedTicket(first, 'legacy');
  await first.close();
  await store.transaction(() => {
    for (const key of [...store.table('actors_ended').getKeys()]) void store.table('actors_ended').remove(key);
    void store.table('actors_meta').remove('ended_index');
  });
  const host = hostOn(store, clock);
  host.rehydrate();
  clock.advance(1);
  assert.is(await host.expireEnded(clock.now(), 100), 1);
  assert.equal(host.events('legacy', 0, 10), []);
  await host.close();
});

retention.run();
