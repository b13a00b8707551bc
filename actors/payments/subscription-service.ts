import type { HostedCheckout, ProviderSubscription } from '../../backends/payment-provider.js';
import { ApiError } from '../../protocols/errors.js';
import { planDefinition, type PlanDefinition } from '../../protocols/payments.js';
import type { ActorHost, ActorRecord } from '../../runtime/host/actor-host.js';
import { newId } from '../../runtime/ids.js';
import { KeyedMutex } from '../../runtime/keyed-mutex.js';
import { providerIdempotencyKey } from './checkout-service.js';
import { callProvider, ensureCustomer, requireProvider, returnUrls, type PaymentsContext } from './payments-context.js';
import {
  SUBSCRIPTION_MACHINE,
  type ProviderSnapshot,
  type SubscriptionContext,
  type SubscriptionInput,
} from './subscription-machine.js';

/** A subscription's state as callers see it: the machine's state and its context. */
export interface SubscriptionState {
  state: 'active' | 'cancel_at_period_end' | 'past_due' | 'ended';
  context: SubscriptionContext;
}

/** A subscription checkout opened for one plan. */
export interface SubscriptionCheckout extends HostedCheckout {
  plan: PlanDefinition;
}

/** The state callers see: `syncing` (writing grants) shows as what it is heading to. */
function visibleState(record: ActorRecord): SubscriptionState {
  const snapshot = record.snapshot as { value: string; context: SubscriptionContext };
  const { context } = snapshot;
  if (record.done || context.ended) return { state: 'ended', context };
  if (snapshot.value === 'active' || snapshot.value === 'cancel_at_period_end' || snapshot.value === 'past_due')
    return { state: snapshot.value, context };
  const pastDue = ['past_due', 'unpaid', 'incomplete', 'paused'].includes(context.providerStatus);
  return { state: pastDue ? 'past_due' : context.cancelAtPeriodEnd ? 'cancel_at_period_end' : 'active', context };
}

/**
 * Subscriptions (spec §4.6): the current one and the versioned plans, a hosted checkout for one
 * plan, cancel at period end, change of plan (the provider prorates) and the hosted portal. Each
 * provider subscription is a small durable machine (`subscription-machine.ts`) that only verified
 * webhooks move; cancel and change are sent to the provider and shown as `pending` until its
 * webhook confirms them. Plans grant a tier floor and early access, never usage credits.
 */
export class SubscriptionService {
  private readonly spawning = new KeyedMutex();

  constructor(
    private readonly context: PaymentsContext,
    private readonly host: ActorHost,
  ) {}

  /** The account's current subscription (ended ones included until a new one starts), or null. */
  current(accountId: string): SubscriptionState | null {
    const id = this.context.repo.currentSubscription(accountId);
    const record = id === undefined ? undefined : this.host.find(id, accountId);
    return record ? visibleState(record) : null;
  }

  /** Opens a checkout for `planId`; 409 when a subscription is live (change it instead), 503 when payments are off. */
  async checkout(accountId: string, planId: string, idempotencyKey?: string): Promise<SubscriptionCheckout> {
    const plan = this.plan(planId);
    const live = this.current(accountId);
    if (live && live.state !== 'ended') {
      throw new ApiError(
        'subscription_exists',
        'This account already has a subscription: change its plan (POST /v1/account/subscription/change) instead.',
      );
    }
    const provider = requireProvider(this.context);
    const customerId = await ensureCustomer(this.context, accountId);
    const { successUrl, cancelUrl } = returnUrls(this.context);
    const checkout = await callProvider(this.context, 'open the checkout', () =>
      provider.createSubscriptionCheckout({
        accountId,
        customerId,
        plan: plan.id,
        successUrl,
        cancelUrl,
        idempotencyKey: providerIdempotencyKey(
          'subscribe',
          accountId,
          idempotencyKey && `${idempotencyKey}\u0000${plan.id}`,
        ),
      }),
    );
    return { ...checkout, plan };
  }

  /** Asks the provider to cancel at period end (access stays until then); idempotent once asked. */
  async cancel(accountId: string): Promise<SubscriptionState> {
    const live = this.requireLive(accountId);
    if (live.context.cancelAtPeriodEnd || live.context.pending?.action === 'cancel') return live;
    const provider = requireProvider(this.context);
    const { id, providerSubscriptionId } = live.context;
    await callProvider(this.context, 'cancel the subscription', () =>
      provider.cancelSubscription({ subscriptionId: providerSubscriptionId, idempotencyKey: `svc-cancel-${id}` }),
    );
    await this.host.send(id, { type: 'REQUESTED', action: 'cancel', plan: null, at: this.context.clock.now() });
    return this.current(accountId)!;
  }

  /** Asks the provider to move the subscription to `planId` (prorated); the same plan changes nothing. */
  async change(accountId: string, planId: string): Promise<SubscriptionState> {
    const plan = this.plan(planId);
    const live = this.requireLive(accountId);
    if (live.context.plan === plan.id && !live.context.cancelAtPeriodEnd) return live;
    const provider = requireProvider(this.context);
    const { id, providerSubscriptionId } = live.context;
    await callProvider(this.context, 'change the plan', () =>
      provider.changeSubscription({
        subscriptionId: providerSubscriptionId,
        plan: plan.id,
        idempotencyKey: `svc-change-${id}-${plan.id}-${this.context.clock.now()}`,
      }),
    );
    await this.host.send(id, { type: 'REQUESTED', action: 'change', plan: plan.id, at: this.context.clock.now() });
    return this.current(accountId)!;
  }

  /** A hosted portal session; 409 until the account has a provider customer (after its first checkout). */
  async portal(accountId: string): Promise<{ url: string }> {
    const customerId = this.context.repo.customerOf(accountId);
    if (!customerId)
      throw new ApiError(
        'billing_account_required',
        'This account has no billing account yet: it is created with the first checkout.',
      );
    const provider = requireProvider(this.context);
    return callProvider(this.context, 'open the portal', () =>
      provider.createPortalSession({ customerId, returnUrl: returnUrls(this.context).portalReturn }),
    );
  }

  /**
   * Applies a verified subscription event: to its machine when it exists, or by starting one for
   * the account named in its metadata (or linked to its customer). One at a time per provider
   * subscription, so concurrent deliveries cannot start two machines. Resolves with what it did.
   */
  apply(eventId: string, created: number, subscription: ProviderSubscription, deleted: boolean): Promise<string> {
    return this.spawning.run(subscription.id, async () => {
      const snapshot: ProviderSnapshot = {
        eventId,
        created,
        plan: subscription.plan,
        status: subscription.status,
        cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
        currentPeriodEnd: subscription.currentPeriodEnd,
        deleted,
      };
      const existing = this.context.repo.subscriptionOfProvider(subscription.id);
      if (existing !== undefined) {
        if (!this.host.isLive(existing)) return 'ignored:ended';
        await this.host.send(existing, { type: 'PROVIDER_SNAPSHOT', ...snapshot });
        return 'applied';
      }
      const accountId = this.accountOf(subscription);
      if (!accountId) return 'rejected:unknown_account';
      if (deleted || subscription.status === 'canceled' || subscription.status === 'incomplete_expired')
        return 'ignored:never_live';
      const id = newId('sub');
      const input: SubscriptionInput = {
        id,
        accountId,
        providerSubscriptionId: subscription.id,
        customerId: subscription.customerId,
        first: snapshot,
        at: this.context.clock.now(),
      };
      await this.context.repo.linkSubscription(accountId, subscription.id, id);
      if (subscription.customerId) await this.context.repo.linkCustomer(accountId, subscription.customerId);
      await this.host.spawn(SUBSCRIPTION_MACHINE, { id, ownerId: accountId, input });
      await this.host.waitFor(id, (s) => s.value !== 'syncing');
      return 'started';
    });
  }

  /** The account a provider subscription belongs to: its metadata, checked against the customer link. */
  private accountOf(subscription: ProviderSubscription): string | null {
    const byCustomer = subscription.customerId
      ? this.context.repo.accountOfCustomer(subscription.customerId)
      : undefined;
    const claimed = subscription.accountId ?? byCustomer ?? null;
    if (!claimed || !this.context.accounts.get(claimed)) return null;
    // A customer already linked to another account does not move.
    if (byCustomer !== undefined && byCustomer !== claimed) return null;
    return claimed;
  }

  private plan(planId: string): PlanDefinition {
    const plan = planDefinition(planId);
    if (!plan)
      throw new ApiError('validation_error', `Unknown plan ${planId}.`, {
        param: 'plan',
        detail: [{ loc: ['body', 'plan'], msg: 'unknown plan', type: 'enum' }],
      });
    return plan;
  }

  private requireLive(accountId: string): SubscriptionState {
    const live = this.current(accountId);
    if (!live || live.state === 'ended')
      throw new ApiError('subscription_required', 'This account has no live subscription.');
    return live;
  }
}
