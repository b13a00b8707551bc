import { createAccountFacades, type AccountFacades } from '../../actors/accounts/account-facades.js';
import type { AccountServices } from '../../actors/accounts/account-services.js';
import { Authenticator } from '../../actors/accounts/authenticator.js';
import { BackgroundTasks } from '../../actors/accounts/background-tasks.js';
import { SecondFactor } from '../../actors/accounts/second-factor.js';
import { TicketBook } from '../../actors/accounts/ticket-book.js';
import { createPaymentFacades, type PaymentFacades } from '../../actors/payments/payment-facades.js';
import { WaitlistRepo } from '../../actors/waitlist/waitlist-repo.js';
import { WaitlistService } from '../../actors/waitlist/waitlist-service.js';
import { createMailer } from '../../backends/mail/create-mailer.js';
import type { Mailer } from '../../backends/mailer.js';
import { StripePaymentProvider } from '../../backends/payments/stripe-payment-provider.js';
import { RecordingSmsSender } from '../../backends/sms-recording-sender.js';
import type { SmsSender } from '../../backends/sms-sender.js';
import type { Clock } from '../../runtime/clock.js';
import type { Cluster } from '../../runtime/cluster/start-cluster.js';
import type { Config } from '../../runtime/config.js';
import type { ActorHost } from '../../runtime/host/actor-host.js';
import type { Logger } from '../../runtime/logger.js';
import { SecretBox } from '../../runtime/secret-box.js';

/** Accounts that can sign in, pay and recover, as the composition root wires them. */
export interface WiredAccounts {
  auth: Authenticator;
  tickets: TicketBook;
  accounts: AccountFacades;
  waitlist: WaitlistService;
  payments: PaymentFacades;
  mailer: Mailer;
  sms: SmsSender;
  /** Mail deliveries in flight (close waits on them). */
  background: BackgroundTasks;
}

/**
 * The accounts side: realtime tickets, the one authenticator with sealed 2FA secrets, mail and
 * texts, the account facades, the waitlist and payments (Stripe when both keys are set).
 */
export function wireAccounts(
  config: Config,
  parts: { services: AccountServices; host: ActorHost; clock: Clock; logger: Logger; cluster: Cluster | null },
): WiredAccounts {
  const { services, host, clock, logger, cluster } = parts;
  const store = services.store;
  const tickets = new TicketBook(clock, config.SVC_REALTIME_TICKET_TTL_S * 1000, cluster?.node.id ?? null);
  const secrets = SecretBox.open(config.SVC_DATA_DIR, config.SVC_SECRETS_KEY);
  const secondFactor = new SecondFactor(store, secrets, clock);
  const auth = new Authenticator(services, tickets, secondFactor);
  const mailer = createMailer(config);
  const sms = new RecordingSmsSender();
  const background = new BackgroundTasks(logger);
  const publicUrl = config.SVC_PUBLIC_URL ?? `http://${config.HOST}:${config.PORT}`;
  const waitlistRepo = new WaitlistRepo(store);
  const accounts = createAccountFacades(services, {
    auth,
    secondFactor,
    mailer,
    background,
    waitlist: waitlistRepo,
    clock,
    publicUrl,
    resetTtlMs: config.SVC_PASSWORD_RESET_TTL_S * 1000,
    verificationTtlMs: config.SVC_EMAIL_VERIFICATION_TTL_S * 1000,
  });
  const waitlist = new WaitlistService({
    repo: waitlistRepo,
    mailer,
    sms,
    box: secrets,
    background,
    clock,
    codeTtlMs: config.SVC_WAITLIST_CODE_TTL_S * 1000,
  });
  const provider =
    config.SVC_STRIPE_SECRET_KEY && config.SVC_STRIPE_WEBHOOK_SECRET
      ? new StripePaymentProvider({
          secretKey: config.SVC_STRIPE_SECRET_KEY,
          webhookSecret: config.SVC_STRIPE_WEBHOOK_SECRET,
          apiUrl: config.SVC_STRIPE_API_URL,
        })
      : null;
  const payments = createPaymentFacades({ services, host, provider, clock, logger, publicUrl });
  return { auth, tickets, accounts, waitlist, payments, mailer, sms, background };
}
