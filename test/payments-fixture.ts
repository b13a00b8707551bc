// What the payments webhook tests share: the real server beside a Stripe double on one simulated
// clock, self-registered payers with an open top-up checkout, and reads of balances, recorded
// events and error log lines.
import * as assert from 'uvu/assert';
import type { ProcessedEvent } from '../actors/payments/payment-repo.js';
import { SimulatedClock } from '../runtime/clock.js';
import type { Logger } from '../runtime/logger.js';
import { StripeDouble } from './doubles/stripe-double.js';
import { startServer, type TestAccount, type TestServer } from './harness.js';

/** An error line the server logged: its message and fields. */
export interface LoggedError {
  msg: string;
  fields: Record<string, unknown>;
}

/** A running server with a Stripe double, and the reads payments tests make. */
export interface PaymentsFixture {
  server: TestServer;
  stripe: StripeDouble;
  /** Error lines logged since the fixture started. */
  errors: LoggedError[];
  /** The account's balance in micro-USD. */
  balance(account: TestAccount): Promise<number>;
  /** What the account's paid top-ups count toward its tier, in USD. */
  paidUsd(account: TestAccount): Promise<number>;
  /** How the service recorded a provider event, if it did. */
  recorded(eventId: string): ProcessedEvent | undefined;
  /** A self-registered account (balance 0) with an open top-up checkout of `usd`. */
  withCheckout(usd: number): Promise<{ account: TestAccount; checkoutId: string }>;
  close(): Promise<void>;
}

/** Starts the server with payments configured against a fresh Stripe double. */
export async function startPayments(): Promise<PaymentsFixture> {
  const clock = new SimulatedClock(Date.UTC(2026, 6, 1));
  const stripe = await StripeDouble.start(() => clock.now());
  const server = await startServer(stripe.env(), { clock });
  const errors: LoggedError[] = [];
  // Error lines are kept from the server's logger and from every request's logger made from it
  // (webhooks log through the request's, which stamps its request id).
  const capture = (logger: Logger): Logger => {
    const logError = logger.error.bind(logger);
    logger.error = (msg, fields = {}) => {
      errors.push({ msg, fields });
      logError(msg, fields);
    };
    return logger;
  };
  const logger = capture(server.app.deps.logger);
  const forRequest = logger.forRequest.bind(logger);
  logger.forRequest = (scope) => capture(forRequest(scope));
  const events = server.app.deps.store.table<ProcessedEvent>('payment_events');
  let payers = 0;
  return {
    server,
    stripe,
    errors,
    balance: async (account) =>
      Math.round((await server.request('GET', '/v1/account', { token: account.session })).body.balance_usd * 1e6),
    paidUsd: async (account) =>
      (await server.request('GET', '/v1/account/tier', { token: account.session })).body.paid_usd,
    recorded: (eventId) => events.get(eventId),
    async withCheckout(usd) {
      const email = `payer-${++payers}-${process.pid}@example.com`;
      const registered = await server.request('POST', '/v1/auth/register', {
        body: { email, password: 'payer password 1' },
      });
      assert.is(registered.status, 201, JSON.stringify(registered.body));
      const account = {
        id: registered.body.account.id,
        email,
        password: 'payer password 1',
        token: '',
        tokenId: '',
        session: registered.body.token,
      };
      const checkout = await server.request('POST', '/v1/account/checkout', {
        token: account.session,
        body: { amount_usd: usd },
      });
      assert.is(checkout.status, 201, JSON.stringify(checkout.body));
      return { account, checkoutId: checkout.body.id };
    },
    async close() {
      await server.close();
      await stripe.close();
    },
  };
}
