import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AttemptLimiter } from '../actors/accounts/attempt-limiter.js';
import { SimulatedClock } from '../runtime/clock.js';

const test = suite('auth: the attempt limiter reserves before the outcome and refunds after');

const WINDOW_MS = 15 * 60_000;

function limiter(limit = 10) {
  const clock = new SimulatedClock(Date.UTC(2026, 6, 1));
  return { clock, limits: new AttemptLimiter(clock, { limit, windowMs: WINDOW_MS }) };
}

test('reserve grants the limit, then answers the wait until one attempt has refilled', () => {
  const { clock, limits } = limiter(10);
  for (let i = 0; i < 10; i++) assert.is(limits.reserve('a'), 0, `attempt ${i + 1} is reserved`);
  assert.is(limits.reserve('a'), WINDOW_MS / 10, 'the 11th waits for one attempt to refill');
  assert.is(limits.reserve('b'), 0, 'another key is unaffected');
  clock.advance(WINDOW_MS / 10);
  assert.is(limits.reserve('a'), 0);
  assert.ok(limits.reserve('a') > 0);
});

test('reservations still in flight count: ten unsettled attempts leave none for the eleventh', () => {
  const { limits } = limiter(10);
  const granted = Array.from({ length: 40 }, () => limits.reserve('victim')).filter((wait) => wait === 0);
  assert.is(granted.length, 10);
});

test('refund gives a reserved attempt back', () => {
  const { limits } = limiter(3);
  for (let i = 0; i < 3; i++) assert.is(limits.reserve('a'), 0);
  assert.ok(limits.reserve('a') > 0);
  limits.refund('a');
  assert.is(limits.reserve('a'), 0, 'the refunded attempt can be reserved again');
  assert.ok(limits.reserve('a') > 0, 'and only that one');
});

test('refund never lifts a key past its limit', () => {
  const { limits } = limiter(3);
  for (let i = 0; i < 5; i++) limits.refund('fresh');
  assert.is(limits.reserve('a'), 0);
  for (let i = 0; i < 5; i++) limits.refund('a');
  const granted = Array.from({ length: 10 }, () => limits.reserve('a')).filter((wait) => wait === 0);
  assert.is(granted.length, 3, 'a key with refunds to spare still gets the limit only');
  assert.is(Array.from({ length: 10 }, () => limits.reserve('fresh')).filter((wait) => wait === 0).length, 3);
});

test('a refund after the window refilled the key changes nothing', () => {
  const { clock, limits } = limiter(2);
  assert.is(limits.reserve('a'), 0);
  clock.advance(WINDOW_MS);
  limits.refund('a');
  assert.is(Array.from({ length: 5 }, () => limits.reserve('a')).filter((wait) => wait === 0).length, 2);
});

test('reset clears a run of reservations', () => {
  const { limits } = limiter(2);
  limits.reserve('a');
  limits.reserve('a');
  assert.ok(limits.reserve('a') > 0);
  limits.reset('a');
  assert.is(limits.reserve('a'), 0);
});

test('reserve and refund around an await: settled right ones give back, wrong ones keep theirs', async () => {
  const { limits } = limiter(5);
  // 30 concurrent checks, every third one right: each reserves first, awaits, then settles.
  const outcomes = await Promise.all(
    Array.from({ length: 30 }, async (_, i) => {
      if (limits.reserve('k') > 0) return 'limited';
      await Promise.resolve();
      if (i % 3 === 0) {
        limits.refund('k');
        return 'right';
      }
      return 'wrong';
    }),
  );
  assert.is(outcomes.filter((o) => o !== 'limited').length, 5, 'no more checks than the limit ran at once');
  const wrong = outcomes.filter((o) => o === 'wrong').length;
  const right = outcomes.filter((o) => o === 'right').length;
  assert.is(
    Array.from({ length: 10 }, () => limits.reserve('k')).filter((wait) => wait === 0).length,
    5 - wrong,
    `${right} refunded`,
  );
});

test.run();
