import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { LedgerEntry } from '../actors/billing/ledger-types.js';
import { fromLedgerRecord, toLedgerRecord } from '../actors/billing/ledger-record.js';
import { openLedgerFixture, TEST_CHARGE } from './ledger-fixture.js';

const test = suite('ledger records: entries stored without field names, older whole entries still read');

const charge: LedgerEntry = {
  id: 'le_abc',
  seq: 7,
  type: 'charge',
  amount: -624,
  balanceAfter: 99_376,
  description: 'chat completion (simple)',
  requestId: 'req_1',
  tokenId: 'tok_1',
  model: 'pro-1',
  promptTokens: 12,
  completionTokens: 10,
  createdAt: 1_795_839_558_939,
};

test('every entry type reads back as it was written', () => {
  for (const type of ['charge', 'topup', 'reversal'] as const) {
    const entry = { ...charge, type, requestId: null, tokenId: null, model: null };
    assert.equal(fromLedgerRecord(toLedgerRecord(entry), entry.seq), entry);
  }
  assert.equal(fromLedgerRecord(toLedgerRecord(charge), 7), charge);
});

test('a record of an unknown layout is refused rather than misread', () => {
  const record = toLedgerRecord(charge);
  record[0] = 2 as 1;
  assert.throws(() => fromLedgerRecord(record, 7), /version 2/);
});

test('entries written whole by an earlier version list beside new records, in order', async () => {
  const { store, services, accountId: id, tokenId, close } = await openLedgerFixture('records@example.com', 1000);
  try {
    const [topup] = [...services.ledger.all(id)];
    // Rewrite the first entry as the earlier version stored it: the whole entry as a map.
    await store.transaction(() => void store.table<LedgerEntry>('ledger').put([id, 1], topup!));
    const hold = services.ledger.hold({ accountId: id, tokenId, amount: 600 });
    const settled = await services.ledger.settle(hold, TEST_CHARGE);
    assert.equal([...services.ledger.all(id)], [topup, settled]);
    assert.equal(services.ledger.recent(id, 10), [settled, topup]);
  } finally {
    await close();
  }
});

test.run();
