import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SimulatedClock, systemClock } from '../runtime/clock.js';

const test = suite('clock: simulated timers fire in time order; system timers never hold the process');

test('advance fires what falls due, in order, each seeing its own time', () => {
  const clock = new SimulatedClock(1000);
  const fired: [string, number][] = [];
  clock.setTimer(() => fired.push(['b', clock.now()]), 200);
  clock.setTimer(() => fired.push(['a', clock.now()]), 100);
  clock.setTimer(() => fired.push(['a2', clock.now()]), 100);
  clock.setTimer(() => fired.push(['late', clock.now()]), 5000);
  clock.advance(250);
  assert.equal(fired, [
    ['a', 1100],
    ['a2', 1100],
    ['b', 1200],
  ]);
  assert.is(clock.now(), 1250);
  assert.is(clock.pending, 1);
});

test('a timer armed while another fires runs in the same advance when it falls due', () => {
  const clock = new SimulatedClock(0);
  const fired: number[] = [];
  clock.setTimer(() => {
    fired.push(clock.now());
    clock.setTimer(() => fired.push(clock.now()), 10);
  }, 10);
  clock.advance(15);
  assert.equal(fired, [10]);
  clock.advance(5);
  assert.equal(fired, [10, 20]);
});

test('a cleared timer never fires', () => {
  const clock = new SimulatedClock(0);
  let fired = false;
  const handle = clock.setTimer(() => (fired = true), 10);
  clock.clearTimer(handle);
  clock.advance(100);
  assert.is(fired, false);
  assert.is(clock.pending, 0);
});

test('system timers fire and can be cleared (and are unref: the test holds the process itself)', async () => {
  let cleared = false;
  let fired = false;
  systemClock.clearTimer(systemClock.setTimer(() => (cleared = true), 1));
  systemClock.setTimer(() => (fired = true), 1);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.is(cleared, false);
  assert.is(fired, true);
});

test.run();
