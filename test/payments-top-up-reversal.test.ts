import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  applyReversalFact,
  readReversalState,
  type ReversalFact,
  type ReversalState,
} from '../actors/payments/top-up-reversal.js';

const test = suite('payments: what a top-up loses to refunds and disputes is a pure function of its facts');

const USD = 1_000_000;
const PAID = 10 * USD;
const refund = (usd: number): ReversalFact => ({ kind: 'refund', refundedMicros: usd * USD });
const dispute = (id: string, usd: number, status: 'opened' | 'won' | 'lost'): ReversalFact => ({
  kind: 'dispute',
  disputeId: id,
  amountMicros: usd * USD,
  status,
});

/** Every order of `items`. */
function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  );
}

/** Applies `facts` in order to a fresh top-up of PAID: the final state and the money moved in all. */
function play(
  facts: readonly ReversalFact[],
  start: ReversalState = readReversalState({ amountMicros: PAID }),
): { state: ReversalState; moved: number } {
  let state = start;
  let moved = 0;
  for (const fact of facts) {
    const step = applyReversalFact(state, fact);
    assert.ok(
      step.state.reversedMicros >= 0 && step.state.reversedMicros <= PAID,
      'never more than was credited, never less than nothing',
    );
    moved += step.micros;
    state = step.state;
  }
  return { state, moved };
}

const cases: { name: string; facts: ReversalFact[]; takenUsd: number }[] = [
  {
    name: 'a full refund and a won dispute',
    facts: [refund(10), dispute('du_1', 10, 'opened'), dispute('du_1', 10, 'won')],
    takenUsd: 10,
  },
  {
    name: 'a full refund and a lost dispute',
    facts: [refund(10), dispute('du_1', 10, 'opened'), dispute('du_1', 10, 'lost')],
    takenUsd: 10,
  },
  {
    name: 'a partial refund and a won dispute of the whole payment',
    facts: [refund(4), dispute('du_1', 10, 'opened'), dispute('du_1', 10, 'won')],
    takenUsd: 4,
  },
  {
    name: 'a partial refund and a lost dispute of the whole payment',
    facts: [refund(4), dispute('du_1', 10, 'opened'), dispute('du_1', 10, 'lost')],
    takenUsd: 10,
  },
  {
    name: 'a partial refund and a won dispute of the rest',
    facts: [refund(4), dispute('du_1', 6, 'opened'), dispute('du_1', 6, 'won')],
    takenUsd: 4,
  },
  {
    name: 'a partial refund and a lost dispute of the rest',
    facts: [refund(4), dispute('du_1', 6, 'opened'), dispute('du_1', 6, 'lost')],
    takenUsd: 10,
  },
  {
    name: 'two partial refunds (cumulative totals) and a won dispute',
    facts: [refund(3), refund(7), dispute('du_1', 10, 'opened'), dispute('du_1', 10, 'won')],
    takenUsd: 7,
  },
  {
    name: 'two disputes, one won and one lost, and a partial refund',
    facts: [
      refund(2),
      dispute('du_1', 3, 'opened'),
      dispute('du_1', 3, 'won'),
      dispute('du_2', 3, 'opened'),
      dispute('du_2', 3, 'lost'),
    ],
    takenUsd: 5,
  },
  {
    name: 'a won dispute whose opening is redelivered',
    facts: [dispute('du_1', 10, 'opened'), dispute('du_1', 10, 'won'), dispute('du_1', 10, 'opened')],
    takenUsd: 0,
  },
  { name: 'a refund past what was credited', facts: [refund(25)], takenUsd: 10 },
];

for (const { name, facts, takenUsd } of cases) {
  test(`${name}: every delivery order takes back ${takenUsd} USD and ends in the same state`, () => {
    const orders = permutations(facts);
    const first = play(orders[0]!);
    for (const order of orders) {
      const { state, moved } = play(order);
      assert.is(moved, takenUsd * USD, JSON.stringify(order));
      assert.is(state.reversedMicros, takenUsd * USD);
      assert.equal(state, first.state, 'the record does not remember the order');
    }
  });
}

test('a close seen before the opening records the dispute in its final status', () => {
  assert.equal(play([dispute('du_1', 10, 'won')]).state.disputes, { du_1: { amountMicros: 10 * USD, status: 'won' } });
  const lost = play([dispute('du_1', 10, 'lost'), dispute('du_1', 10, 'opened')]);
  assert.equal(lost.state.disputes, { du_1: { amountMicros: 10 * USD, status: 'lost' } });
  assert.is(lost.moved, 10 * USD);
});

test('each step moves the target less what was already taken: a win gives back only what no refund covers', () => {
  const opened = play([dispute('du_1', 10, 'opened')]);
  assert.is(opened.moved, 10 * USD);
  const refunded = applyReversalFact(opened.state, refund(10));
  assert.is(refunded.micros, 0, 'nothing left to take');
  assert.is(
    applyReversalFact(refunded.state, dispute('du_1', 10, 'won')).micros,
    0,
    'the refund still holds the money',
  );
  const partly = applyReversalFact(opened.state, refund(4));
  assert.is(applyReversalFact(partly.state, dispute('du_1', 10, 'won')).micros, -6 * USD);
});

const legacy: {
  name: string;
  record: Parameters<typeof readReversalState>[0];
  disputes: ReversalState['disputes'];
  reversedUsd: number;
}[] = [
  { name: 'no refund nor dispute', record: { amountMicros: PAID }, disputes: {}, reversedUsd: 0 },
  {
    name: 'an open dispute',
    record: { amountMicros: PAID, disputes: { du_1: PAID } },
    disputes: { du_1: { amountMicros: PAID, status: 'opened' } },
    reversedUsd: 10,
  },
  {
    name: 'a won dispute (0) after a full refund',
    record: { amountMicros: PAID, refundedMicros: PAID, disputes: { du_1: 0 } },
    disputes: { du_1: { amountMicros: 0, status: 'won' } },
    reversedUsd: 10,
  },
  {
    name: 'a refund and an open dispute of the rest',
    record: { amountMicros: PAID, refundedMicros: 4 * USD, disputes: { du_1: 6 * USD } },
    disputes: { du_1: { amountMicros: 6 * USD, status: 'opened' } },
    reversedUsd: 10,
  },
  {
    name: 'an open dispute then a refund it covered',
    record: { amountMicros: PAID, refundedMicros: PAID, disputes: { du_1: PAID } },
    disputes: { du_1: { amountMicros: PAID, status: 'opened' } },
    reversedUsd: 10,
  },
];

for (const { name, record, disputes, reversedUsd } of legacy) {
  test(`a record written before dispute statuses reads correctly: ${name}`, () => {
    const state = readReversalState(record);
    assert.equal(state.disputes, disputes);
    assert.is(state.reversedMicros, reversedUsd * USD);
  });
}

test('an older record with a dispute open and a full refund gives nothing back when the dispute is won', () => {
  const state = readReversalState({ amountMicros: PAID, refundedMicros: PAID, disputes: { du_1: PAID } });
  assert.is(applyReversalFact(state, dispute('du_1', 10, 'won')).micros, 0);
});

test('a record in the current shape reads back as written', () => {
  const state: ReversalState = {
    creditedMicros: PAID,
    refundedMicros: 2 * USD,
    disputes: { du_1: { amountMicros: 3 * USD, status: 'lost' } },
    reversedMicros: 5 * USD,
  };
  assert.equal(
    readReversalState({
      amountMicros: PAID,
      refundedMicros: state.refundedMicros,
      disputes: state.disputes,
      reversedMicros: state.reversedMicros,
    }),
    state,
  );
});

test.run();
