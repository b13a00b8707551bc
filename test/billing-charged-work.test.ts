import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AccountServices } from '../actors/accounts/account-services.js';
import { chargedWork, chargeNow, holdFor, StandingCharges, type Bill } from '../actors/billing/charged-work.js';
import type { Ledger } from '../actors/billing/ledger.js';
import { ApiError } from '../protocols/errors.js';
import { SimulatedClock } from '../runtime/clock.js';
import { MemoryStore } from '../runtime/store/memory-store.js';

const test = suite('billing: charged work holds, then settles what was produced or releases, once');

let services: AccountServices;
let store: MemoryStore;
let ledger: Ledger;
let payer: { accountId: string; tokenId: string; requestId: string };

test.before.each(async () => {
  store = new MemoryStore();
  services = new AccountServices(store, new SimulatedClock(), { sessionTtlMs: 60_000, usageFlushMs: 0 });
  const created = await services.createAccount({
    email: 'charged@example.com',
    password: null,
    creditMicros: 10_000,
    tokenLabel: 't',
  });
  ledger = services.ledger;
  payer = { accountId: created!.account.id, tokenId: created!.token!.record.id, requestId: 'req_1' };
});
test.after.each(() => services.close());

const bill = (charge: number, extra: Partial<Bill> = {}): Bill => ({
  charge,
  description: 'work',
  model: 'pro-1',
  promptTokens: 7,
  completionTokens: 3,
  ...extra,
});

const charges = () => [...ledger.all(payer.accountId)].filter((entry) => entry.type === 'charge');
const isInsufficient = (err: unknown) => err instanceof ApiError && err.code === 'insufficient_balance';

test('work that succeeds is charged its bill, capped at the hold, with the exact ledger fields', async () => {
  const done = chargedWork(ledger, { payer, hold: 4000, bill: (n: number) => bill(n) }, () => {
    assert.equal(ledger.state(payer.accountId), { balance: 10_000, held: 4000 }, 'held before the work runs');
    return Promise.resolve(1234);
  });
  assert.equal(await done, { result: 1234, micros: 1234 });
  assert.equal(ledger.state(payer.accountId), { balance: 10_000 - 1234, held: 0 });
  const [entry] = charges();
  assert.equal(
    {
      amount: entry!.amount,
      description: entry!.description,
      requestId: entry!.requestId,
      tokenId: entry!.tokenId,
      model: entry!.model,
      promptTokens: entry!.promptTokens,
      completionTokens: entry!.completionTokens,
    },
    {
      amount: -1234,
      description: 'work',
      requestId: 'req_1',
      tokenId: payer.tokenId,
      model: 'pro-1',
      promptTokens: 7,
      completionTokens: 3,
    },
  );
  const capped = await chargedWork(ledger, { payer, hold: 500, bill: () => bill(9999) }, () => Promise.resolve());
  assert.is(capped.micros, 500, 'never above the hold');
});

test('a hold that does not fit is 402 before the work starts, and holds nothing', () => {
  let ran = false;
  assert.throws(
    () =>
      chargedWork(ledger, { payer, hold: 10_001, bill: () => bill(1) }, () => {
        ran = true;
        return Promise.resolve();
      }),
    isInsufficient,
  );
  assert.not.ok(ran);
  assert.equal(ledger.state(payer.accountId), { balance: 10_000, held: 0 });
});

test('cancelled work is charged what it produced; a bill of null releases the hold', async () => {
  const cancelled = await chargedWork(
    ledger,
    { payer, hold: 4000, bill: (r: { produced: number }) => (r.produced > 0 ? bill(r.produced * 10) : null) },
    () => Promise.resolve({ produced: 42 }),
  );
  assert.is(cancelled.micros, 420);
  const nothing = await chargedWork(
    ledger,
    { payer, hold: 4000, bill: (r: { produced: number }) => (r.produced > 0 ? bill(r.produced) : null) },
    () => Promise.resolve({ produced: 0 }),
  );
  assert.is(nothing.micros, 0);
  assert.equal(ledger.state(payer.accountId), { balance: 10_000 - 420, held: 0 });
  assert.is(charges().length, 1);
});

test('work that fails releases its hold and rethrows; a failure that still bills (client gone) settles', async () => {
  const boom = new Error('backend down');
  await chargedWork(ledger, { payer, hold: 4000, bill: () => bill(100) }, () => Promise.reject(boom)).then(
    () => assert.unreachable(),
    (err: unknown) => assert.is(err, boom),
  );
  // Thrown before it returned a promise: released all the same.
  await chargedWork(ledger, { payer, hold: 4000, bill: () => bill(100) }, () => {
    throw boom;
  }).then(
    () => assert.unreachable(),
    (err: unknown) => assert.is(err, boom),
  );
  assert.equal(ledger.state(payer.accountId), { balance: 10_000, held: 0 });
  assert.is(charges().length, 0);
  const gone = new Error('client left');
  await chargedWork(
    ledger,
    { payer, hold: 4000, bill: () => bill(100), billFailure: (err) => (err === gone ? bill(60) : null) },
    () => Promise.reject(gone),
  ).catch((err: unknown) => assert.is(err, gone));
  assert.equal(ledger.state(payer.accountId), { balance: 10_000 - 60, held: 0 });
});

test('a bill that throws still releases the hold', async () => {
  const bad = new Error('bad bill');
  await chargedWork(
    ledger,
    {
      payer,
      hold: 4000,
      bill: () => {
        throw bad;
      },
    },
    () => Promise.resolve(),
  ).catch((err: unknown) => assert.is(err, bad));
  assert.equal(ledger.state(payer.accountId), { balance: 10_000, held: 0 });
});

test('a charge ends once: a second settle is a no-op returning the first, release after settle changes nothing', async () => {
  const charge = holdFor(ledger, payer, 3000);
  assert.ok(charge.open);
  assert.is(charge.held, 3000);
  const [first, second] = await Promise.all([charge.settle(bill(1000)), charge.settle(bill(2000))]);
  assert.equal(first, second);
  assert.is(first.micros, 1000);
  charge.release();
  assert.not.ok(charge.open);
  assert.is(charge.held, 0);
  assert.equal(ledger.state(payer.accountId), { balance: 9000, held: 0 });
  assert.is(charges().length, 1);
  // Released first: a later settle charges nothing.
  const released = holdFor(ledger, payer, 3000);
  released.release();
  assert.equal(await released.settle(bill(1000)), { micros: 0, entryId: null });
  assert.equal(ledger.state(payer.accountId), { balance: 9000, held: 0 });
  assert.throws(() => released.hold(1), /ended/);
});

test('work at a known price holds exactly that and charges it (402 when it does not fit)', async () => {
  assert.is((await chargeNow(ledger, payer, bill(777))).micros, 777);
  assert.throws(() => chargeNow(ledger, payer, bill(10_000)), isInsufficient);
  assert.equal(ledger.state(payer.accountId), { balance: 10_000 - 777, held: 0 });
});

test('writes made with the charge commit in its transaction, told what it charged; a throw there undoes the charge', async () => {
  const beside = store.table<{ micros: number; result: number }>('beside');
  const alsoWrite = (result: number, charged: { micros: number }) =>
    void beside.put(result, { micros: charged.micros, result });
  const done = await chargedWork(ledger, { payer, hold: 4000, bill: (n: number) => bill(n), alsoWrite }, () =>
    Promise.resolve(1234),
  );
  assert.equal(done, { result: 1234, micros: 1234 });
  assert.equal(beside.get(1234), { micros: 1234, result: 1234 });
  // Nothing owed: the hold is released and nothing is written beside it.
  await chargedWork(ledger, { payer, hold: 4000, bill: () => null, alsoWrite }, () => Promise.resolve(55));
  assert.is(beside.get(55), undefined);
  // A write that throws rolls the charge back with it: no entry, no money moved, no hold left.
  const failing = chargedWork(
    ledger,
    {
      payer,
      hold: 4000,
      bill: (n: number) => bill(n),
      alsoWrite: (n: number) => {
        void beside.put(n, { micros: -1, result: n });
        throw new Error('cannot write');
      },
    },
    () => Promise.resolve(777),
  );
  await failing.then(
    () => assert.unreachable('the settle rejects'),
    (err: unknown) => assert.match(String(err), /cannot write/),
  );
  assert.is(beside.get(777), undefined);
  assert.is(charges().length, 1);
  assert.equal(ledger.state(payer.accountId), { balance: 10_000 - 1234, held: 0 });
});

test('a settle by a ref already charged writes beside it with the first charge, charging nothing more', async () => {
  const seen: number[] = [];
  const terms = { ref: 'response:r1', alsoWrite: (charged: { micros: number }) => void seen.push(charged.micros) };
  assert.is((await holdFor(ledger, payer, 1000).settle(bill(600), terms)).micros, 600);
  assert.is((await holdFor(ledger, payer, 1000).settle(bill(900), terms)).micros, 600);
  assert.equal(seen, [600, 600]);
  assert.is(charges().length, 1);
  assert.equal(ledger.state(payer.accountId), { balance: 10_000 - 600, held: 0 });
});

test('standing charges: one per owner, re-placed with force, settled once by reference, another opener’s left alone', async () => {
  const standing = new StandingCharges(ledger, 'job');
  const charge = standing.open('j1', payer, 6000)!;
  assert.is(standing.open('j1', payer, 6000), null, 'one charge per owner');
  assert.throws(() => standing.open('j2', payer, 6000), isInsufficient);
  // A force re-places a hold granted before a restart, whatever the balance is now.
  const forced = standing.open('j2', payer, 6000, true)!;
  assert.is(ledger.state(payer.accountId).held, 12_000);
  standing.release('j2', forced);
  // A stale opener's release leaves the owner's current charge alone.
  const stale = holdFor(ledger, payer, 100);
  standing.release('j1', stale);
  assert.is(standing.held('j1'), 6000);
  const first = await standing.settle('j1', payer, bill(2500), 6000);
  assert.is(first.micros, 2500);
  assert.is(charge.open, false);
  // The step re-run after a crash: no charge in memory, the same reference, nothing more charged.
  const again = await standing.settle('j1', payer, bill(2500), 6000);
  assert.is(again.entryId, first.entryId);
  assert.equal(ledger.state(payer.accountId), { balance: 7500, held: 0 });
  assert.is(charges().length, 1);
  assert.is(charges()[0]!.requestId, 'req_1');
});

test('standing charges grow by top-ups and settle every hold in one entry, capped as asked', async () => {
  const standing = new StandingCharges(ledger, 'call');
  standing.open('c1', payer, 1000);
  standing.ensure('c1', payer).hold(1000);
  standing.ensure('c2', payer).hold(500);
  assert.is(standing.held('c1'), 2000);
  assert.is(standing.held('c2'), 500);
  assert.is((await standing.settle('c1', payer, bill(5000), 1800)).micros, 1800);
  standing.release('c2');
  assert.equal(ledger.state(payer.accountId), { balance: 8200, held: 0 });
  // Settled with no hold in memory (none survived a restart): charged by reference up to the cap.
  assert.is((await standing.settle('c3', payer, bill(300), 300)).micros, 300);
  assert.equal(ledger.state(payer.accountId), { balance: 7900, held: 0 });
});

test.run();
