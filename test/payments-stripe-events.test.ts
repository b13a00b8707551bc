import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { toPaymentEvent } from '../backends/payments/stripe-events.js';

const test = suite('payments: Stripe dispute events reduce to opened, won or lost');

const closed = (status: string) =>
  toPaymentEvent({
    id: `evt_${status}`,
    type: 'charge.dispute.closed',
    created: 1,
    data: { object: { id: 'du_1', payment_intent: 'pi_1', amount: 1000, status } },
  });

test('a closed dispute is won when Stripe says won, or when an inquiry closed without a chargeback', () => {
  for (const status of ['won', 'warning_closed'])
    assert.equal(closed(status), {
      kind: 'dispute',
      eventId: `evt_${status}`,
      created: 1000,
      paymentIntentId: 'pi_1',
      disputeId: 'du_1',
      amountCents: 1000,
      status: 'won',
    });
});

test('any other final status is lost', () => {
  for (const status of ['lost', 'charge_refunded']) assert.is((closed(status) as { status: string }).status, 'lost');
});

test.run();
