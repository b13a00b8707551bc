import { assign, emit, fromPromise, setup } from 'xstate';
import type { ProviderSubscriptionStatus } from '../../backends/payment-provider.js';

/** The name subscriptions are registered under in the actor host. */
export const SUBSCRIPTION_MACHINE = 'account-subscription';

/** After the period end, how long a past-due subscription keeps its grants while the provider retries payment. */
export const PAST_DUE_GRACE_MS = 7 * 86_400_000;

/** What the provider said about the subscription in one verified event. */
export interface ProviderSnapshot {
  eventId: string;
  /** When the provider created the event (epoch ms): older snapshots than the last applied are ignored. */
  created: number;
  plan: string | null;
  status: ProviderSubscriptionStatus;
  cancelAtPeriodEnd: boolean;
  currentPeriodEnd: number | null;
  deleted: boolean;
}

/** Everything a subscription starts with; plain data, persisted with the snapshot. */
export interface SubscriptionInput {
  id: string;
  accountId: string;
  providerSubscriptionId: string;
  customerId: string | null;
  first: ProviderSnapshot;
  at: number;
}

/** A cancel or change sent to the provider, until its webhook confirms it. */
export interface PendingRequest {
  action: 'cancel' | 'change';
  plan: string | null;
  at: number;
}

/** A subscription's state between events. */
export interface SubscriptionContext {
  id: string;
  accountId: string;
  providerSubscriptionId: string;
  customerId: string | null;
  plan: string | null;
  providerStatus: ProviderSubscriptionStatus;
  cancelAtPeriodEnd: boolean;
  currentPeriodEnd: number | null;
  /** Set when the provider deleted it or its access lapsed. */
  ended: boolean;
  lastEventAt: number;
  /** The newest applied event ids, so a redelivery is recognised. */
  seenEvents: string[];
  pending: PendingRequest | null;
  deadlines: { lapses?: number | null };
  createdAt: number;
  updatedAt: number;
}

/** Events the webhook service, the facade and the host's timers send. */
export type SubscriptionEvent =
  | ({ type: 'PROVIDER_SNAPSHOT' } & ProviderSnapshot)
  | { type: 'REQUESTED'; action: 'cancel' | 'change'; plan: string | null; at: number }
  | { type: 'TIMER'; name: string };

/** What a subscription emits into its log: the provider's view after each change, and its failures and end. */
export type SubscriptionEmitted =
  | {
      type: 'subscription_state';
      plan: string | null;
      provider_status: ProviderSubscriptionStatus;
      cancel_at_period_end: boolean;
      current_period_end: number | null;
      ended: boolean;
    }
  | { type: 'grants_failed' }
  | { type: 'subscription_ended' };

/** What the grants effect writes onto the account: the plan and until when it counts, or nothing. */
export interface GrantsInput {
  accountId: string;
  subscriptionId: string;
  plan: { id: string; until: number } | null;
}

const ENDED_STATUSES: readonly ProviderSubscriptionStatus[] = ['canceled', 'incomplete_expired'];
const PAST_DUE_STATUSES: readonly ProviderSubscriptionStatus[] = ['past_due', 'unpaid', 'incomplete', 'paused'];
const SEEN_KEPT = 20;

/** The grants a subscription in `context` gives: its plan until the paid period (plus grace when past due) ends. */
export function grantsOf(
  context: SubscriptionContext,
  state: 'active' | 'cancel_at_period_end' | 'past_due' | 'ended',
): GrantsInput {
  const base = { accountId: context.accountId, subscriptionId: context.id };
  if (state === 'ended' || !context.plan || context.currentPeriodEnd === null) return { ...base, plan: null };
  const until = state === 'past_due' ? context.currentPeriodEnd + PAST_DUE_GRACE_MS : context.currentPeriodEnd;
  return { ...base, plan: { id: context.plan, until } };
}

const applySnapshot = (context: SubscriptionContext, snapshot: ProviderSnapshot): Partial<SubscriptionContext> => {
  const pending = context.pending;
  const confirmed =
    pending &&
    ((pending.action === 'cancel' && snapshot.cancelAtPeriodEnd) ||
      (pending.action === 'change' && snapshot.plan === pending.plan));
  return {
    plan: snapshot.plan ?? context.plan,
    providerStatus: snapshot.status,
    cancelAtPeriodEnd: snapshot.cancelAtPeriodEnd,
    currentPeriodEnd: snapshot.currentPeriodEnd ?? context.currentPeriodEnd,
    ended: context.ended || snapshot.deleted || ENDED_STATUSES.includes(snapshot.status),
    lastEventAt: Math.max(context.lastEventAt, snapshot.created),
    seenEvents: [...context.seenEvents, snapshot.eventId].slice(-SEEN_KEPT),
    pending: confirmed ? null : pending,
    updatedAt: snapshot.created,
  };
};

const snapshotOf = (event: SubscriptionEvent): ProviderSnapshot | null => {
  if (event.type !== 'PROVIDER_SNAPSHOT') return null;
  return {
    eventId: event.eventId,
    created: event.created,
    plan: event.plan,
    status: event.status,
    cancelAtPeriodEnd: event.cancelAtPeriodEnd,
    currentPeriodEnd: event.currentPeriodEnd,
    deleted: event.deleted,
  };
};

/** Where `syncing` goes once the grants are written: the state the provider's view calls for. */
const SETTLE = [
  { guard: 'isEnded', target: 'ended' },
  { guard: 'isPastDue', target: 'past_due' },
  { guard: 'isCancelling', target: 'cancel_at_period_end' },
  { target: 'active' },
] as const;

/**
 * One provider subscription of one account, driven by verified webhooks: `active`,
 * `cancel_at_period_end` (access stays until the paid period ends), `past_due` (the provider is
 * retrying payment; access stays through a grace after the period end) and `ended` (final).
 * Every state first passes through `syncing`, whose effect writes the grants (plan and until
 * when) onto the account, so a crash mid-way re-runs the write after rehydration. Snapshots older
 * than the last applied one, and redeliveries, change nothing. A period end passing with no
 * renewal (deadline `lapses`) ends the subscription even if the provider's webhook never comes.
 */
export const subscriptionMachine = setup({
  types: {
    context: {} as SubscriptionContext,
    events: {} as SubscriptionEvent,
    input: {} as SubscriptionInput,
    emitted: {} as SubscriptionEmitted,
  },
  actors: {
    applyGrants: fromPromise<void, GrantsInput>(() =>
      Promise.reject(new Error('applyGrants must be provided by the runtime')),
    ),
  },
  guards: {
    isFresh: ({ context, event }) =>
      event.type === 'PROVIDER_SNAPSHOT' &&
      !context.seenEvents.includes(event.eventId) &&
      event.created >= context.lastEventAt,
    isEnded: ({ context }) => context.ended,
    isPastDue: ({ context }) => PAST_DUE_STATUSES.includes(context.providerStatus),
    isCancelling: ({ context }) => context.cancelAtPeriodEnd,
    isLapseTimer: ({ event }) => event.type === 'TIMER' && event.name === 'lapses',
  },
  actions: {
    applySnapshot: assign(({ context, event }) => {
      const snapshot = snapshotOf(event);
      return snapshot ? applySnapshot(context, snapshot) : {};
    }),
    recordRequest: assign(({ event }) =>
      event.type === 'REQUESTED' ? { pending: { action: event.action, plan: event.plan, at: event.at } } : {},
    ),
    lapse: assign(({ context }) => ({ ended: true, updatedAt: context.deadlines.lapses ?? context.updatedAt })),
    clearDeadlines: assign({ deadlines: () => ({}) }),
    armPeriodEnd: assign(({ context }) => ({ deadlines: { lapses: context.currentPeriodEnd } })),
    armGrace: assign(({ context }) => ({
      deadlines: { lapses: context.currentPeriodEnd === null ? null : context.currentPeriodEnd + PAST_DUE_GRACE_MS },
    })),
    emitState: emit(({ context }) => ({
      type: 'subscription_state',
      plan: context.plan,
      provider_status: context.providerStatus,
      cancel_at_period_end: context.cancelAtPeriodEnd,
      current_period_end: context.currentPeriodEnd,
      ended: context.ended,
    })),
  },
}).createMachine({
  id: 'subscription',
  context: ({ input }) => {
    const base: SubscriptionContext = {
      id: input.id,
      accountId: input.accountId,
      providerSubscriptionId: input.providerSubscriptionId,
      customerId: input.customerId,
      plan: null,
      providerStatus: input.first.status,
      cancelAtPeriodEnd: false,
      currentPeriodEnd: null,
      ended: false,
      lastEventAt: 0,
      seenEvents: [],
      pending: null,
      deadlines: {},
      createdAt: input.at,
      updatedAt: input.at,
    };
    return { ...base, ...applySnapshot(base, input.first), updatedAt: input.at };
  },
  initial: 'syncing',
  on: {
    PROVIDER_SNAPSHOT: { guard: 'isFresh', target: '.syncing', reenter: true, actions: 'applySnapshot' },
    REQUESTED: { actions: 'recordRequest' },
  },
  states: {
    syncing: {
      entry: 'emitState',
      invoke: {
        src: 'applyGrants',
        input: ({ context }): GrantsInput => {
          const state = context.ended
            ? 'ended'
            : PAST_DUE_STATUSES.includes(context.providerStatus)
              ? 'past_due'
              : context.cancelAtPeriodEnd
                ? 'cancel_at_period_end'
                : 'active';
          return grantsOf(context, state);
        },
        onDone: SETTLE,
        // The write is retried by the next event or deadline; the state still follows the provider.
        onError: SETTLE.map((branch) => ({ ...branch, actions: emit({ type: 'grants_failed' }) })),
      },
    },
    active: {
      entry: 'clearDeadlines',
    },
    cancel_at_period_end: {
      entry: 'armPeriodEnd',
      on: { TIMER: { guard: 'isLapseTimer', target: 'syncing', actions: 'lapse' } },
    },
    past_due: {
      entry: 'armGrace',
      on: { TIMER: { guard: 'isLapseTimer', target: 'syncing', actions: 'lapse' } },
    },
    ended: {
      type: 'final',
      entry: ['clearDeadlines', emit({ type: 'subscription_ended' })],
    },
  },
});
