import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chatBody, startServer, type TestServer } from './harness.js';

const test = suite('ledger: concurrent requests never overdraw');
let server: TestServer;

test.before(async () => {
  server = await startServer();
});
test.after(() => server.close());

test('200 concurrent requests against a balance for about 50 never go below zero and sum exactly', async () => {
  // max_tokens 64 holds 64 × 48 + prompt × 12 micro-USD; replies use 12 to 60 tokens.
  const probe = await server.request('POST', '/v1/estimate', { body: chatBody('Concurrent billing probe') });
  const holdUsd: number = probe.body.hold_usd;
  const creditUsd = Number((holdUsd * 50).toFixed(6));
  const account = await server.account(creditUsd);

  const results = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      server.request('POST', '/v1/chat/completions', {
        token: account.token,
        body: chatBody(`Concurrent billing probe ${i % 7}`, { temperature: 1 }),
      }),
    ),
  );
  const ok = results.filter((r) => r.status === 200);
  const refused = results.filter((r) => r.status === 402);
  assert.is(ok.length + refused.length, 200, `unexpected statuses: ${[...new Set(results.map((r) => r.status))]}`);
  assert.ok(ok.length >= 45, `only ${ok.length} succeeded`); // each hold covers its worst case, so about 50 fit at once
  assert.ok(refused.length > 0, 'expected some 402s');

  const chargedMicros = ok.reduce((sum, r) => sum + Math.round(r.body.svc.price_usd * 1e6), 0);
  for (const r of ok) assert.is(r.headers.get('x-svc-price-usd'), r.body.svc.price_usd.toFixed(6));

  const acct = await server.request('GET', '/v1/account', { token: account.token });
  const balanceMicros = Math.round(acct.body.balance_usd * 1e6);
  assert.ok(balanceMicros >= 0, `balance went negative: ${balanceMicros}`);
  assert.is(balanceMicros, Math.round(creditUsd * 1e6) - chargedMicros);
  assert.is(acct.body.held_usd, 0);

  const usage = await server.request('GET', '/v1/account/usage?limit=500', { token: account.token });
  const charges = usage.body.recent.filter((e: { type: string }) => e.type === 'charge');
  assert.is(charges.length, ok.length);
  const ledgerMicros = usage.body.recent.reduce(
    (sum: number, e: { amount_usd: number }) => sum + Math.round(e.amount_usd * 1e6),
    0,
  );
  assert.is(ledgerMicros, balanceMicros);
  assert.is(Math.round(usage.body.last_30_days.charges_usd * 1e6), chargedMicros);
  assert.is(usage.body.last_30_days.requests, ok.length);

  const keyUsage = await server.request('GET', '/v1/usage', { token: account.token });
  assert.is(Math.round(keyUsage.body.cost_usd * 1e6), chargedMicros);
  assert.is(keyUsage.body.denied, refused.length);
});

test.run();
