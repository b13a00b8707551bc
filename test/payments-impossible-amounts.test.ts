import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { SignedEvent } from './doubles/stripe-double.js';
import { startPayments, type PaymentsFixture } from './payments-fixture.js';

// A verified event whose amount no payment can have is acknowledged (no retry storm), recorded as
// refused, moves no money and is logged at error level for the operator (issue 24).
const test = suite('payments: webhooks with impossible amounts are acknowledged and move no money');
let pay: PaymentsFixture;

test.before(async () => {
  pay = await startPayments();
});
test.after(async () => {
  await pay.close();
});

/** Delivers `event` twice: acknowledged, recorded as `rejected:amount`, logged once at error level, a duplicate the second time. */
async function assertRefused(event: SignedEvent): Promise<void> {
  const logged = pay.errors.length;
  const res = await pay.stripe.deliver(pay.server.url, event);
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body, { received: true, duplicate: false });
  assert.is(pay.recorded(event.id)?.outcome, 'rejected:amount');
  assert.equal(
    pay.errors.slice(logged).map((line) => [line.fields.event_id, line.fields.reason]),
    [[event.id, 'amount']],
  );
  assert.equal((await pay.stripe.deliver(pay.server.url, event)).body, { received: true, duplicate: true });
}

test('webhook with a fractional amount_total is acknowledged and credits nothing', async () => {
  const { account, checkoutId } = await pay.withCheckout(10);
  await assertRefused(pay.stripe.paid(checkoutId, { amount_total: 1000.5 }));
  assert.is(await pay.balance(account), 0);
  assert.is(await pay.paidUsd(account), 0);
});

test('webhooks with a fractional or negative refund or dispute amount are acknowledged and take nothing back', async () => {
  const { account, checkoutId } = await pay.withCheckout(10);
  assert.is((await pay.stripe.deliver(pay.server.url, pay.stripe.paid(checkoutId))).status, 200);
  const { stripe } = pay;
  const events = [
    stripe.refunded(checkoutId, 1000.5),
    stripe.refunded(checkoutId, -100),
    stripe.disputed(checkoutId, 'du_F', 999.5, 'created'),
    stripe.disputed(checkoutId, 'du_N', -1_000, 'created'),
    stripe.disputed(checkoutId, 'du_F', 0.5, 'lost'),
  ];
  for (const event of events) await assertRefused(event);
  assert.is(await pay.balance(account), 10_000_000);
  assert.is(await pay.paidUsd(account), 10);
  // The refused dispute was not recorded: its genuine opening still takes the money back.
  await pay.stripe.deliver(pay.server.url, stripe.disputed(checkoutId, 'du_F', 1_000, 'created'));
  assert.is(await pay.balance(account), 0);
});

test.run();
