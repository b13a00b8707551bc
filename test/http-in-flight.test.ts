import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { InFlight } from '../http/in-flight.js';

const test = suite('http: the drain awaits the requests in flight instead of polling');

test('drained resolves at once with nothing in flight', async () => {
  await new InFlight().drained(60_000);
});

test('drained resolves when the last request leaves, not before', async () => {
  const inFlight = new InFlight();
  inFlight.enter();
  inFlight.enter();
  let done = false;
  const drained = inFlight.drained(60_000).then(() => (done = true));
  inFlight.leave();
  await Promise.resolve();
  assert.not.ok(done, 'one is still in flight');
  assert.is(inFlight.size, 1);
  inFlight.leave();
  await drained;
  assert.ok(done);
});

test('the deadline ends the wait while a request is still in flight', async () => {
  const inFlight = new InFlight();
  inFlight.enter();
  await inFlight.drained(0);
  assert.is(inFlight.size, 1);
});

test.run();
