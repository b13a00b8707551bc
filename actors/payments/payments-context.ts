import type { PaymentProvider } from '../../backends/payment-provider.js';
import { ApiError } from '../../protocols/errors.js';
import type { Clock } from '../../runtime/clock.js';
import type { Logger } from '../../runtime/logger.js';
import type { AccountRepo } from '../accounts/account-repo.js';
import type { PaymentRepo } from './payment-repo.js';

/** What every payments facade works with. */
export interface PaymentsContext {
  /** The provider, or null when payments are not configured (then 503). */
  provider: PaymentProvider | null;
  repo: PaymentRepo;
  accounts: AccountRepo;
  clock: Clock;
  logger: Logger;
  /** Base of the return URLs the provider sends payers back to (`SVC_PUBLIC_URL`). */
  publicUrl: string;
}

/** The provider, or 503 `payments_not_configured`. */
export function requireProvider(context: PaymentsContext): PaymentProvider {
  if (!context.provider)
    throw new ApiError(
      'payments_not_configured',
      'Payments are not configured on this server (SVC_STRIPE_SECRET_KEY); ask the operator to fund the account.',
    );
  return context.provider;
}

/** Runs a provider call; its failure becomes 502 `payment_provider_error` (logged, without secrets). */
export async function callProvider<T>(context: PaymentsContext, action: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    context.logger.warn('payment provider call failed', {
      action,
      err: err instanceof Error ? { name: err.name, message: err.message } : String(err),
    });
    throw new ApiError('payment_provider_error', `The payment provider could not ${action}; try again shortly.`, {
      cause: err,
    });
  }
}

/** The account's provider customer, created (and linked) on first use. */
export async function ensureCustomer(context: PaymentsContext, accountId: string): Promise<string> {
  const existing = context.repo.customerOf(accountId);
  if (existing) return existing;
  const account = context.accounts.get(accountId);
  if (!account) throw new ApiError('invalid_api_key', 'Invalid or expired session token.');
  const provider = requireProvider(context);
  const { customerId } = await callProvider(context, 'create the customer', () =>
    provider.createCustomer({ accountId, email: account.email }),
  );
  return context.repo.linkCustomer(accountId, customerId);
}

/** Where the provider sends the payer back (`{CHECKOUT_SESSION_ID}` is filled in by Stripe). */
export function returnUrls(context: PaymentsContext): { successUrl: string; cancelUrl: string; portalReturn: string } {
  const base = `${context.publicUrl.replace(/\/+$/, '')}/account/billing`;
  return {
    successUrl: `${base}?checkout=success&session_id={CHECKOUT_SESSION_ID}`,
    cancelUrl: `${base}?checkout=cancelled`,
    portalReturn: base,
  };
}
