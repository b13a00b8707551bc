import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TopUpRecord } from '../actors/payments/payment-repo.js';
import { startPayments, type PaymentsFixture } from './payments-fixture.js';

// Stripe does not promise event order: whatever order a payment's refund and dispute events
// arrive in, the account must end at the same balance (issue 24).
const test = suite('payments: a refund between dispute opened and won is taken back');
let pay: PaymentsFixture;

type Step = 'refund' | 'opened' | 'won' | 'lost';

/** Every order of `items`. */
function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  );
}

/** Delivers one step for the 10 USD checkout `checkoutId`; the provider must see 200. */
async function deliver(checkoutId: string, step: Step, cents: { refund: number; dispute: number }): Promise<void> {
  const { stripe, server } = pay;
  const event =
    step === 'refund'
      ? stripe.refunded(checkoutId, cents.refund)
      : stripe.disputed(checkoutId, 'du_X', cents.dispute, step === 'opened' ? 'created' : step);
  const res = await stripe.deliver(server.url, event);
  assert.is(res.status, 200, `${step}: ${JSON.stringify(res.body)}`);
}

test.before(async () => {
  pay = await startPayments();
});
test.after(async () => {
  await pay.close();
});

const cases = [
  { name: 'a full refund', refund: 1_000, dispute: 1_000, afterWonUsd: 0, afterLostUsd: 0 },
  {
    name: 'a partial refund, the dispute for the whole payment',
    refund: 400,
    dispute: 1_000,
    afterWonUsd: 6,
    afterLostUsd: 0,
  },
  { name: 'a partial refund, the dispute for the rest', refund: 400, dispute: 600, afterWonUsd: 6, afterLostUsd: 0 },
];

for (const { name, refund, dispute, afterWonUsd, afterLostUsd } of cases) {
  for (const [close, endUsd] of [
    ['won', afterWonUsd],
    ['lost', afterLostUsd],
  ] as const) {
    test(`${name} and a ${close} dispute end at ${endUsd} USD in every delivery order`, async () => {
      for (const order of permutations<Step>(['refund', 'opened', close])) {
        const { account, checkoutId } = await pay.withCheckout(10);
        assert.is((await pay.stripe.deliver(pay.server.url, pay.stripe.paid(checkoutId))).status, 200);
        for (const step of order) await deliver(checkoutId, step, { refund, dispute });
        assert.is(await pay.balance(account), endUsd * 1_000_000, order.join(' → '));
        assert.is(await pay.paidUsd(account), endUsd, `the paid total moves with it: ${order.join(' → ')}`);
      }
    });
  }
}

test('a dispute opened again after it was won takes nothing back', async () => {
  const { account, checkoutId } = await pay.withCheckout(10);
  await pay.stripe.deliver(pay.server.url, pay.stripe.paid(checkoutId));
  for (const step of ['opened', 'won', 'opened'] as const)
    await deliver(checkoutId, step, { refund: 0, dispute: 1_000 });
  assert.is(await pay.balance(account), 10_000_000);
});

test('a top-up recorded before dispute statuses ends at the same balance', async () => {
  const topups = pay.server.app.deps.store.table<TopUpRecord>('payment_topups');
  const toOlderShape = async (checkoutId: string, disputes: Record<string, number>) => {
    const record: TopUpRecord = { ...topups.get(checkoutId)!, disputes };
    delete record.reversedMicros;
    await topups.put(checkoutId, record);
  };

  // Opened under the earlier code (what it took, by dispute), then refunded and won under this one.
  const open = await pay.withCheckout(10);
  await pay.stripe.deliver(pay.server.url, pay.stripe.paid(open.checkoutId));
  await deliver(open.checkoutId, 'opened', { refund: 0, dispute: 1_000 });
  await toOlderShape(open.checkoutId, { du_X: 10_000_000 });
  await deliver(open.checkoutId, 'refund', { refund: 1_000, dispute: 0 });
  await deliver(open.checkoutId, 'won', { refund: 0, dispute: 1_000 });
  assert.is(await pay.balance(open.account), 0);
  assert.ok(topups.get(open.checkoutId)!.reversedMicros === 10_000_000, 'written back in the current shape');

  // Won under the earlier code (0), then refunded, then its opening redelivered late.
  const won = await pay.withCheckout(10);
  await pay.stripe.deliver(pay.server.url, pay.stripe.paid(won.checkoutId));
  await deliver(won.checkoutId, 'opened', { refund: 0, dispute: 1_000 });
  await deliver(won.checkoutId, 'won', { refund: 0, dispute: 1_000 });
  await toOlderShape(won.checkoutId, { du_X: 0 });
  await deliver(won.checkoutId, 'refund', { refund: 1_000, dispute: 0 });
  await deliver(won.checkoutId, 'opened', { refund: 0, dispute: 1_000 });
  assert.is(await pay.balance(won.account), 0);
});

test.run();
