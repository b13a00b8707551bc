// `npm run bench -- --scenario accounts`: what accounts that can pay and recover cost per request,
// each figure beside a same-run baseline doing the least possible same work. Reports, never asserts.
import { createHash, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import Stripe from 'stripe';
import { Bench } from 'tinybench';
import { AccountServices } from '../../actors/accounts/account-services.js';
import { Authenticator } from '../../actors/accounts/authenticator.js';
import { TicketBook } from '../../actors/accounts/ticket-book.js';
import { totpCode, totpStep } from '../../actors/accounts/totp.js';
import { PaymentRepo } from '../../actors/payments/payment-repo.js';
import { StripePaymentProvider } from '../../backends/payments/stripe-payment-provider.js';
import type { Exchange } from '../../http/exchange.js';
import { Perimeter } from '../../http/perimeter.js';
import { systemClock, type Clock } from '../../runtime/clock.js';
import { SecretBox } from '../../runtime/secret-box.js';
import { LmdbStore } from '../../runtime/store/lmdb-store.js';
import { tempDataDir } from '../../test/harness.js';
import { microResults, type MicroResult } from '../micro.js';

const WEBHOOK_SECRET = 'whsec_bench_0123456789abcdef';

/** A clock a minute ahead at every reading, so the per-minute buckets refill and the loop measures the check, not 429s. */
function racingClock(): Clock {
  let t = Date.now();
  return {
    now: () => (t += 60_000),
    setTimer: (fire, ms) => systemClock.setTimer(fire, ms),
    clearTimer: (handle) => systemClock.clearTimer(handle),
  };
}

/** Runs the accounts figures: tier enforcement at the perimeter, webhook verification and crediting, TOTP, sealing. */
export async function runAccountsBench(options: { timeMs: number }): Promise<MicroResult[]> {
  const dir = tempDataDir();
  const store = LmdbStore.open(dir);
  const services = new AccountServices(store, racingClock(), { sessionTtlMs: 60_000, usageFlushMs: 0 });
  const auth = new Authenticator(services, new TicketBook(systemClock, 60_000));
  const custom = (await services.createAccount({
    email: 'custom@bench.test',
    password: null,
    creditMicros: 1e12,
    tokenLabel: 'bench',
    tier: 'custom',
  }))!;
  const tiered = (await services.createAccount({
    email: 'tiered@bench.test',
    password: null,
    creditMicros: 1e12,
    tokenLabel: 'bench',
    tier: 'tier-4',
  }))!;
  const customToken = custom.token!.value;
  const tieredToken = tiered.token!.value;
  const perimeter = new Perimeter(auth, undefined);
  const fakeExchange = {} as Exchange;

  const repo = new PaymentRepo(store, systemClock, { accounts: services.accounts, ledger: services.ledger });
  const provider = new StripePaymentProvider({ secretKey: 'sk_test_bench_0123456789', webhookSecret: WEBHOOK_SECRET });
  const signer = new Stripe('sk_test_bench_0123456789');
  let eventCounter = 0;
  const signedTopUp = () => {
    const n = ++eventCounter;
    const payload = JSON.stringify({
      id: `evt_bench_${n}`,
      object: 'event',
      created: Math.floor(Date.now() / 1000),
      type: 'checkout.session.completed',
      data: {
        object: {
          id: `cs_bench_${n}`,
          object: 'checkout.session',
          mode: 'payment',
          payment_status: 'paid',
          amount_total: 500,
          currency: 'usd',
          client_reference_id: custom.account.id,
          metadata: { account_id: custom.account.id, purpose: 'topup' },
        },
      },
    });
    return {
      payload: Buffer.from(payload),
      signature: signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }),
    };
  };
  const fixed = signedTopUp();
  const kv = store.table<{ n: number }>('bench_accounts');

  const box = SecretBox.fromKey(randomBytes(32));
  const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
  const sealed = box.seal(secret, custom.account.id);
  const now = Date.now();
  const code = totpCode(secret, now);

  const groups: Record<string, { name: string; baseline: boolean }> = {};
  const bench = new Bench({ time: options.timeMs, warmupTime: Math.min(200, options.timeMs) });
  const add = (group: string, name: string, baseline: boolean, fn: () => unknown) => {
    groups[name] = { name: group, baseline };
    bench.add(name, fn);
  };

  add('perimeter', 'baseline: API token, custom tier (no tier caps)', true, () => auth.apiToken(customToken));
  add('perimeter', 'API token, tier-4 (account rpm bucket)', false, () => auth.apiToken(tieredToken));
  add('perimeter', 'per-request perimeter: note address, authenticate, admit, finish (tier-4)', false, () => {
    const gate = perimeter.forRequest(fakeExchange, '127.0.0.1');
    gate.authenticate('token', `Bearer ${tieredToken}`);
    gate.finish();
  });
  add('webhook', 'baseline: JSON.parse of the event', true, () => JSON.parse(fixed.payload.toString('utf8')));
  add('webhook', 'verify signature and read the event (stripe SDK)', false, () =>
    provider.verifyEvent(fixed.payload, fixed.signature, Date.now()),
  );
  add('webhook credit', 'baseline: bare LMDB transaction with one put', true, () =>
    store.transaction(() => void kv.put('k', { n: 1 })),
  );
  add(
    'webhook credit',
    'verify + credit once (event id reserved, ledger, paid total, one transaction)',
    false,
    async () => {
      const delivery = signedTopUp();
      const event = await provider.verifyEvent(delivery.payload, delivery.signature, Date.now());
      if (event.kind === 'topup_paid')
        await repo.creditTopUp({
          eventId: event.eventId,
          checkoutId: event.checkoutId,
          accountId: custom.account.id,
          amountMicros: event.amountCents * 10_000,
          description: 'bench',
        });
    },
  );
  add('two-factor', 'baseline: one HMAC-SHA-1', true, () => createHash('sha1').update(code).digest());
  add('two-factor', 'TOTP check of a code (otpauth, ±1 step)', false, () => totpStep(secret, code, now));
  add('two-factor', 'open the sealed secret (AES-256-GCM) + TOTP check', false, () =>
    totpStep(box.open(sealed, custom.account.id), code, now),
  );

  await bench.run();
  const results = microResults(bench, groups);
  await services.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return results;
}
