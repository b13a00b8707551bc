import { assign, emit, enqueueActions, fromPromise, setup } from 'xstate';
import type { OrderAction } from '../../protocols/marketplace.js';
import { effectError, effectOutput } from '../effect-results.js';

/** The name orders are registered under in the actor host. */
export const ORDER_MACHINE = 'marketplace-order';

/** Everything an order starts with; plain data, persisted with the snapshot. */
export interface OrderInput {
  id: string;
  accountId: string;
  tokenId: string | null;
  listingId: string;
  listingTitle: string;
  seller: string;
  quantity: number;
  unitPriceMicros: number;
  /** The approval that places the order (the pending action the first call returned). */
  approvalId: string;
  at: number;
  /** How long a pending action can be confirmed. */
  approvalTtlMs: number;
}

/** A state-changing action waiting for the caller's explicit approval. */
export interface PendingApproval {
  id: string;
  action: OrderAction;
  expiresAt: number;
  /** For a cancel: the reason given. */
  reason: string | null;
}

/** An order's state between events. */
export interface OrderContext extends OrderInput {
  priceMicros: number;
  pending: PendingApproval | null;
  /** Approvals already carried out, so a repeated confirmation is answered, not refused. */
  carriedOut: string[];
  deadlines: { pending?: number | null };
  heldMicros: number;
  chargedMicros: number;
  cancelReason: string | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
}

/** Input of the runtime's `settleCharge` actor: plain data, so a settle cut by a crash runs again. */
export interface OrderSettleInput {
  orderId: string;
  accountId: string;
  tokenId: string | null;
  priceMicros: number;
  description: string;
}

/** Events the order service and the host's timers send to an order. */
export type OrderEvent =
  | { type: 'APPROVE'; approvalId: string; at: number }
  | { type: 'REQUEST'; action: 'accept' | 'cancel'; approvalId: string; reason: string | null; at: number }
  | { type: 'CONFIRM'; approvalId: string; at: number }
  | { type: 'DECLINE'; approvalId: string; at: number }
  | { type: 'TIMER'; name: string };

/** What an order emits into its log: each step and each approval asked for (money in micro-USD). */
export type OrderEmitted =
  | { type: 'proposed'; listing_id: string; quantity: number; price_micros: number; approval_id: string }
  | { type: 'approval_requested'; approval_id: string; action: OrderAction; expires_at: number }
  | { type: 'placed'; held_micros: number }
  | { type: 'declined' }
  | { type: 'approval_expired' }
  | { type: 'accepted'; charged_micros: number }
  | { type: 'cancelled'; reason: string | null };

const pendingIs = (context: OrderContext, event: OrderEvent, action: OrderAction) =>
  'approvalId' in event &&
  'at' in event &&
  context.pending !== null &&
  context.pending.id === event.approvalId &&
  context.pending.action === action &&
  event.at <= context.pending.expiresAt;

const settleInputOf = (context: OrderContext): OrderSettleInput => ({
  orderId: context.id,
  accountId: context.accountId,
  tokenId: context.tokenId,
  priceMicros: context.priceMicros,
  description: `marketplace order ${context.id}: ${context.quantity} × ${context.listingTitle} (${context.seller})`,
});

/**
 * A marketplace order: proposed (`pending_approval`, nothing held), placed once its approval is
 * confirmed (the price is held from the balance), then `accepted` (the price charged, once) or
 * `cancelled` (what was held given back). Every state-changing step waits for an explicit
 * approval: a pending action with an id and an expiry (a deadline in `context.deadlines`); an
 * unconfirmed proposal lapses to `cancelled`, an unconfirmed accept or cancel is dropped. Money
 * moves in the runtime's `settleCharge` and `releaseHold` actors; the hold itself is placed by the
 * service before `APPROVE`, so a refusal (402) leaves the order as it was.
 */
export const orderMachine = setup({
  types: {
    context: {} as OrderContext,
    events: {} as OrderEvent,
    input: {} as OrderInput,
    emitted: {} as OrderEmitted,
  },
  actors: {
    settleCharge: fromPromise<{ chargedMicros: number }, OrderSettleInput>(() =>
      Promise.reject(new Error('settleCharge must be provided by the runtime')),
    ),
    releaseHold: fromPromise<void, { orderId: string }>(() =>
      Promise.reject(new Error('releaseHold must be provided by the runtime')),
    ),
  },
  guards: {
    approvesOrder: ({ context, event }) => event.type === 'APPROVE' && pendingIs(context, event, 'order'),
    confirmsAccept: ({ context, event }) => event.type === 'CONFIRM' && pendingIs(context, event, 'accept'),
    confirmsCancel: ({ context, event }) => event.type === 'CONFIRM' && pendingIs(context, event, 'cancel'),
    declinesPending: ({ context, event }) => event.type === 'DECLINE' && context.pending?.id === event.approvalId,
    isPendingTimer: ({ event }) => event.type === 'TIMER' && event.name === 'pending',
  },
  actions: {
    touch: assign(({ context, event }) => ({ updatedAt: 'at' in event ? event.at : context.updatedAt })),
    requestApproval: assign(({ context, event }) => {
      if (event.type !== 'REQUEST') return {};
      const expiresAt = event.at + context.approvalTtlMs;
      return {
        pending: { id: event.approvalId, action: event.action, expiresAt, reason: event.reason },
        deadlines: { pending: expiresAt },
      };
    }),
    // Follows requestApproval, which has just set the pending action.
    emitRequested: enqueueActions(({ context, enqueue }) => {
      const pending = context.pending;
      if (!pending) return;
      enqueue.emit({
        type: 'approval_requested',
        approval_id: pending.id,
        action: pending.action,
        expires_at: pending.expiresAt,
      });
    }),
    carryOut: assign(({ context }) => ({
      carriedOut: context.pending ? [...context.carriedOut, context.pending.id] : context.carriedOut,
      cancelReason:
        context.pending?.action === 'cancel'
          ? (context.pending.reason ?? 'cancelled by the buyer')
          : context.cancelReason,
      pending: null,
      deadlines: {},
      lastError: null,
    })),
    dropPending: assign({ pending: () => null, deadlines: () => ({}) }),
    hold: assign(({ context }) => ({ heldMicros: context.priceMicros })),
    lapse: assign({ cancelReason: () => 'approval_expired', pending: () => null, deadlines: () => ({}) }),
    decline: assign({ cancelReason: () => 'declined', pending: () => null, deadlines: () => ({}) }),
    // settleCharge's output and error arrive as params (effectOutput, effectError).
    recordCharge: assign((_, output: { chargedMicros: number }) => ({
      chargedMicros: output.chargedMicros,
      heldMicros: 0,
    })),
    recordRelease: assign({ heldMicros: () => 0 }),
    recordFailure: assign((_, error: unknown) => ({
      lastError: error instanceof Error ? error.message : 'settling failed',
    })),
  },
}).createMachine({
  id: 'order',
  context: ({ input }) => ({
    ...input,
    priceMicros: input.quantity * input.unitPriceMicros,
    pending: { id: input.approvalId, action: 'order', expiresAt: input.at + input.approvalTtlMs, reason: null },
    carriedOut: [],
    deadlines: { pending: input.at + input.approvalTtlMs },
    heldMicros: 0,
    chargedMicros: 0,
    cancelReason: null,
    lastError: null,
    createdAt: input.at,
    updatedAt: input.at,
  }),
  initial: 'pending_approval',
  states: {
    pending_approval: {
      entry: emit(({ context }) => ({
        type: 'proposed',
        listing_id: context.listingId,
        quantity: context.quantity,
        price_micros: context.priceMicros,
        // The order's own approval: the pending action it starts with.
        approval_id: context.approvalId,
      })),
      on: {
        APPROVE: { guard: 'approvesOrder', target: 'placed', actions: ['touch', 'carryOut', 'hold'] },
        REQUEST: {
          guard: ({ event }) => event.action === 'cancel',
          actions: ['touch', 'requestApproval', 'emitRequested'],
        },
        CONFIRM: { guard: 'confirmsCancel', target: 'cancelled', actions: ['touch', 'carryOut'] },
        DECLINE: { guard: 'declinesPending', target: 'cancelled', actions: ['touch', 'decline'] },
        TIMER: { guard: 'isPendingTimer', target: 'cancelled', actions: 'lapse' },
      },
    },
    placed: {
      entry: emit(({ context }) => ({ type: 'placed', held_micros: context.heldMicros })),
      on: {
        REQUEST: { actions: ['touch', 'requestApproval', 'emitRequested'] },
        CONFIRM: [
          { guard: 'confirmsAccept', target: 'accepting', actions: ['touch', 'carryOut'] },
          { guard: 'confirmsCancel', target: 'releasing', actions: ['touch', 'carryOut'] },
        ],
        DECLINE: { guard: 'declinesPending', actions: ['touch', 'dropPending', emit({ type: 'declined' })] },
        TIMER: { guard: 'isPendingTimer', actions: ['dropPending', emit({ type: 'approval_expired' })] },
      },
    },
    accepting: {
      invoke: {
        src: 'settleCharge',
        input: ({ context }) => settleInputOf(context),
        onDone: { target: 'accepted', actions: { type: 'recordCharge', params: effectOutput } },
        onError: { target: 'placed', actions: { type: 'recordFailure', params: effectError } },
      },
    },
    releasing: {
      invoke: {
        src: 'releaseHold',
        input: ({ context }) => ({ orderId: context.id }),
        onDone: { target: 'cancelled', actions: 'recordRelease' },
        onError: { target: 'cancelled', actions: 'recordRelease' },
      },
    },
    accepted: {
      type: 'final',
      entry: emit(({ context }) => ({ type: 'accepted', charged_micros: context.chargedMicros })),
    },
    cancelled: { type: 'final', entry: emit(({ context }) => ({ type: 'cancelled', reason: context.cancelReason })) },
  },
});

/** Every state an order can be in, transient steps included. */
export type OrderMachineState = 'pending_approval' | 'placed' | 'accepting' | 'releasing' | 'accepted' | 'cancelled';

/** States in which an order holds money. */
export const HOLDING_ORDER_STATES: readonly string[] = [
  'placed',
  'accepting',
  'releasing',
] satisfies OrderMachineState[];
