import { fromPromise } from 'xstate';
import type { ActorRecord, HostedMachine } from '../../runtime/host/actor-host.js';
import type { Billing } from '../billing/billing.js';
import { StandingCharges, type OpenCharge, type Payer } from '../billing/charged-work.js';
import {
  HOLDING_ORDER_STATES,
  ORDER_MACHINE,
  orderMachine,
  type OrderContext,
  type OrderSettleInput,
} from './order-machine.js';

/** Who pays for an order (no request: the order outlives the one that placed it). */
const payerOf = (order: { accountId: string; tokenId: string | null }): Payer => ({
  accountId: order.accountId,
  tokenId: order.tokenId,
  requestId: null,
});

/**
 * The money side of orders: the hold of a placed order, its once-only charge when accepted, and
 * its release when cancelled. The hold outlives the approval that placed it and is settled by the
 * order's own step, so it is a standing charge rather than `chargedWork`: in memory by order id,
 * re-placed with `force` after a restart for orders that had one, and a charge cut by a crash
 * settles again under the same reference (`order:<id>`), which the ledger charges once.
 */
export class OrderRuntime {
  private readonly charges: StandingCharges;

  constructor(billing: Billing) {
    this.charges = new StandingCharges(billing, 'order');
  }

  /** Holds an order's price (402 when the balance cannot cover it); null when it already holds. */
  hold(context: Pick<OrderContext, 'id' | 'accountId' | 'tokenId' | 'priceMicros'>, force = false): OpenCharge | null {
    return this.charges.open(context.id, payerOf(context), context.priceMicros, force);
  }

  /** Gives back a hold whose approval was not taken after all; another's hold is left alone. */
  release(orderId: string, charge: OpenCharge | null): void {
    if (charge) this.charges.release(orderId, charge);
  }

  private async settle(input: OrderSettleInput): Promise<{ chargedMicros: number }> {
    const charged = await this.charges.settle(
      input.orderId,
      payerOf(input),
      { charge: input.priceMicros, description: input.description, model: null, promptTokens: 0, completionTokens: 0 },
      input.priceMicros,
    );
    // No entry: this reference was charged before a restart; the charge stands at the price.
    return { chargedMicros: charged.entryId ? charged.micros : input.priceMicros };
  }

  private releaseHold(orderId: string): Promise<void> {
    this.charges.release(orderId);
    return Promise.resolve();
  }

  /** The order machine with this runtime's money steps, ready to register with the host. */
  hosted(): HostedMachine {
    return {
      name: ORDER_MACHINE,
      logic: orderMachine.provide({
        actors: {
          settleCharge: fromPromise<{ chargedMicros: number }, OrderSettleInput>(({ input }) => this.settle(input)),
          releaseHold: fromPromise<void, { orderId: string }>(({ input }) => this.releaseHold(input.orderId)),
        },
      }),
      onRehydrate: (record: ActorRecord) => {
        const snapshot = record.snapshot as { value: unknown; context: OrderContext };
        if (typeof snapshot.value === 'string' && HOLDING_ORDER_STATES.includes(snapshot.value))
          this.hold(snapshot.context, true);
      },
    };
  }
}
