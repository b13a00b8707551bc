import { createStore } from '@xstate/store';

/** An account's money in micro-USD: settled balance and the part held for requests in flight. */
export interface LedgerState {
  balance: number;
  held: number;
}

/** Events that move an account's money; amounts are non-negative integer micro-USD. */
export type LedgerEvent =
  | { type: 'credited'; amount: number }
  /** Paid money taken back (a refunded or disputed top-up): the balance may go below zero. */
  | { type: 'reversed'; amount: number }
  | { type: 'held'; amount: number }
  | { type: 'released'; amount: number }
  | { type: 'settled'; held: number; charge: number };

// Used only for its pure `transition`; the state itself lives in LMDB and in the ledger's hold map.
const ledgerStore = createStore({
  context: { balance: 0, held: 0 },
  on: {
    credited: (ctx, event: { amount: number }) => ({ ...ctx, balance: ctx.balance + event.amount }),
    reversed: (ctx, event: { amount: number }) => ({ ...ctx, balance: ctx.balance - event.amount }),
    held: (ctx, event: { amount: number }) => ({ ...ctx, held: ctx.held + event.amount }),
    released: (ctx, event: { amount: number }) => ({ ...ctx, held: Math.max(0, ctx.held - event.amount) }),
    // A charge never exceeds its hold: the hold was the worst case the caller agreed to.
    settled: (ctx, event: { held: number; charge: number }) => ({
      balance: ctx.balance - Math.min(event.charge, event.held),
      held: Math.max(0, ctx.held - event.held),
    }),
  },
});

/** What the balance can still cover after every hold. */
export function available(state: LedgerState): number {
  return state.balance - state.held;
}

/** Whether a hold of `amount` fits in the available balance. */
export function canHold(state: LedgerState, amount: number): boolean {
  return amount <= available(state);
}

/** The pure ledger transition (an @xstate/store transition): state and event in, next state out. */
export function applyLedgerEvent(state: LedgerState, event: LedgerEvent): LedgerState {
  const [next] = ledgerStore.transition({ ...ledgerStore.getSnapshot(), context: state }, event);
  return next.context;
}
