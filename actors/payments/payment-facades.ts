import type { PaymentProvider } from '../../backends/payment-provider.js';
import type { Clock } from '../../runtime/clock.js';
import type { ActorHost } from '../../runtime/host/actor-host.js';
import type { Logger } from '../../runtime/logger.js';
import type { AccountServices } from '../accounts/account-services.js';
import { CheckoutService } from './checkout-service.js';
import { PaymentRepo } from './payment-repo.js';
import type { PaymentsContext } from './payments-context.js';
import { SubscriptionRuntime } from './subscription-runtime.js';
import { SubscriptionService } from './subscription-service.js';
import { WebhookService } from './webhook-service.js';

/** The payments feature as routes call it. */
export interface PaymentFacades {
  /** Top-up checkouts. */
  checkout: CheckoutService;
  /** Subscriptions: current, checkout, cancel, change, portal. */
  subscriptions: SubscriptionService;
  /** Verified provider webhooks. */
  webhooks: WebhookService;
  /** Whether a provider is configured. */
  configured: boolean;
}

/** What payments are built from. */
export interface PaymentDeps {
  services: AccountServices;
  host: ActorHost;
  provider: PaymentProvider | null;
  clock: Clock;
  logger: Logger;
  publicUrl: string;
}

/** Builds the payments facades and registers the subscription machine with the host. */
export function createPaymentFacades(deps: PaymentDeps): PaymentFacades {
  const repo = new PaymentRepo(deps.services.store, deps.clock, {
    accounts: deps.services.accounts,
    ledger: deps.services.ledger,
  });
  const context: PaymentsContext = {
    provider: deps.provider,
    repo,
    accounts: deps.services.accounts,
    clock: deps.clock,
    logger: deps.logger,
    publicUrl: deps.publicUrl,
  };
  deps.host.register(new SubscriptionRuntime(deps.services.accounts, repo).hosted());
  const subscriptions = new SubscriptionService(context, deps.host);
  return {
    checkout: new CheckoutService(context),
    subscriptions,
    webhooks: new WebhookService(context, subscriptions),
    configured: deps.provider !== null,
  };
}
