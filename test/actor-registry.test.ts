import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SimulatedClock } from '../runtime/clock.js';
import { ActorRegistry } from '../runtime/host/actor-registry.js';

const test = suite('actor registry: live actors, and finished ones for a bounded grace');

const add = (registry: ActorRegistry, id: string, handle = id) =>
  registry.add({ id, machine: 'm', ownerId: 'acct', handle });

test('a retired actor answers through its final handle for its grace, then is forgotten; foreign owners never see it', () => {
  const clock = new SimulatedClock();
  const registry = new ActorRegistry(clock);
  add(registry, 'a');
  assert.is(registry.get('a', 'acct', 'm'), 'a');
  registry.retire('a', 1_000, 'final');
  assert.equal(registry.list(), [], 'no longer listed as live');
  assert.is(registry.get('a', 'acct', 'm'), 'final');
  assert.is(registry.get('a', 'someone-else', 'm'), undefined);
  assert.is(registry.get('a', 'acct', 'other-machine'), undefined);
  clock.advance(999);
  assert.is(registry.get('a', 'acct', 'm'), 'final');
  clock.advance(1);
  assert.is(registry.get('a', 'acct', 'm'), undefined);
  assert.is(registry.size, 0);
});

test('at most maxRetired stay, the oldest go first, and a grace of 0 forgets at once', () => {
  const clock = new SimulatedClock();
  const registry = new ActorRegistry(clock, 3);
  for (const id of ['a', 'b', 'c', 'd', 'e']) {
    add(registry, id);
    registry.retire(id, 60_000);
  }
  assert.equal(
    ['a', 'b', 'c', 'd', 'e'].map((id) => registry.get(id, 'acct', 'm') ?? null),
    [null, null, 'c', 'd', 'e'],
  );
  add(registry, 'f');
  registry.retire('f', 0);
  assert.is(registry.get('f', 'acct', 'm'), undefined);
  assert.is(registry.size, 3);
});

test('an id added again while retired is live again, and its earlier retirement does not expire the new one', () => {
  const clock = new SimulatedClock();
  const registry = new ActorRegistry(clock);
  add(registry, 'x', 'first');
  registry.retire('x', 100, 'first-final');
  add(registry, 'x', 'second');
  assert.is(registry.get('x', 'acct', 'm'), 'second');
  clock.advance(50);
  registry.retire('x', 1_000, 'second-final');
  clock.advance(60); // past the first grace, inside the second
  assert.is(registry.get('x', 'acct', 'm'), 'second-final');
  registry.remove('x');
  assert.is(registry.get('x', 'acct', 'm'), undefined);
});

test('a long run of retirements keeps the registry bounded and answering', () => {
  const clock = new SimulatedClock();
  const registry = new ActorRegistry(clock, 100);
  for (let i = 0; i < 50_000; i++) {
    add(registry, `r${i}`);
    registry.retire(`r${i}`, 300_000);
    if (i % 7 === 0) clock.advance(1);
  }
  assert.is(registry.size, 100);
  assert.is(registry.get('r49999', 'acct', 'm'), 'r49999');
  assert.is(registry.get('r49899', 'acct', 'm'), undefined);
});

test.run();
