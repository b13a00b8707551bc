import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { applyLedgerEvent, canHold } from '../actors/billing/account-ledger.js';
import { createBucket, takeFromBucket } from '../actors/accounts/token-bucket.js';
import { ApiError } from '../protocols/errors.js';
import { openLedgerFixture, TEST_CHARGE } from './ledger-fixture.js';

const test = suite('ledger and token bucket: pure transitions and LMDB settlement');

test('settling charges at most the hold and releases it whole', () => {
  const held = applyLedgerEvent({ balance: 1000, held: 0 }, { type: 'held', amount: 300 });
  assert.equal(held, { balance: 1000, held: 300 });
  assert.equal(applyLedgerEvent(held, { type: 'settled', held: 300, charge: 120 }), { balance: 880, held: 0 });
  assert.equal(applyLedgerEvent(held, { type: 'settled', held: 300, charge: 999 }), { balance: 700, held: 0 });
  assert.ok(canHold({ balance: 1000, held: 300 }, 700));
  assert.not.ok(canHold({ balance: 1000, held: 300 }, 701));
});

test('a bucket grants its capacity then refuses with a wait until one request refills', () => {
  let bucket = createBucket(2, 0);
  bucket = takeFromBucket(bucket, 0, 2);
  assert.ok(bucket.granted);
  bucket = takeFromBucket(bucket, 0, 2);
  assert.ok(bucket.granted);
  bucket = takeFromBucket(bucket, 0, 2);
  assert.not.ok(bucket.granted);
  assert.is(bucket.retryAfterMs, 30_000);
  bucket = takeFromBucket(bucket, 30_000, 2);
  assert.ok(bucket.granted);
});

test('a changed limit restarts the bucket at the new capacity', () => {
  let bucket = takeFromBucket(createBucket(1, 0), 0, 1);
  bucket = takeFromBucket(bucket, 0, 5);
  assert.ok(bucket.granted);
  assert.is(bucket.capacity, 5);
});

test('holds, settles and credits on a real LMDB store keep the books exact', async () => {
  const { clock, services, accountId: id, tokenId, close } = await openLedgerFixture('ledger@example.com', 1000);
  try {
    const a = services.ledger.hold({ accountId: id, tokenId, amount: 600 });
    assert.throws(
      () => services.ledger.hold({ accountId: id, tokenId, amount: 401 }),
      (err: unknown) => err instanceof ApiError && err.code === 'insufficient_balance',
    );
    const b = services.ledger.hold({ accountId: id, tokenId, amount: 400 });
    const settling = services.ledger.settle(a, TEST_CHARGE);
    // Until the charge commits, the full hold still counts.
    assert.is(services.ledger.state(id).held, 1000);
    await settling;
    assert.equal(services.ledger.state(id), { balance: 750, held: 400 });
    services.ledger.release(b);
    services.ledger.release(b);
    assert.equal(services.ledger.state(id), { balance: 750, held: 0 });
    await services.ledger.credit(id, 50, 'top-up');
    const entries = [...services.ledger.all(id)];
    assert.equal(
      entries.map((e) => [e.type, e.amount, e.balanceAfter]),
      [
        ['topup', 1000, 1000],
        ['charge', -250, 750],
        ['topup', 50, 800],
      ],
    );
    assert.equal(
      entries.map((e) => e.seq),
      [1, 2, 3],
    );
    assert.is(services.keyUsage.get(tokenId).cost, 250);
    const totals = services.ledger.totals(id, 30);
    assert.equal(
      { topups: totals.topups, charges: totals.charges, requests: totals.requests },
      { topups: 1050, charges: 250, requests: 1 },
    );
    clock.advance(31 * 86_400_000);
    assert.is(services.ledger.totals(id, 30).charges, 0, 'the 30-day window rolls');
    const again = await services.ledger
      .settle(a, { charge: 1, description: '', requestId: null, model: null, promptTokens: 0, completionTokens: 0 })
      .then(
        () => 'settled twice',
        () => 'refused',
      );
    assert.is(again, 'refused', 'a hold settles once');
    assert.is(services.ledger.state(id).balance, 800);
  } finally {
    await close();
  }
});

test.run();
