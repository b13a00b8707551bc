import { fromPromise } from 'xstate';
import type { ActorRecord, HostedMachine } from '../../runtime/host/actor-host.js';
import type { Billing } from '../billing/billing.js';
import type { Hold } from '../billing/ledger.js';
import {
  HOLDING_ORDER_STATES,
  ORDER_MACHINE,
  orderMachine,
  type OrderContext,
  type OrderSettleInput,
} from './order-machine.js';

/**
 * The money side of orders: the hold of a placed order, its once-only charge when accepted, and
 * its release when cancelled. Holds live in memory by order id; after a restart they are re-placed
 * for orders that had one, and a charge cut by a crash settles again under the same reference
 * (`order:<id>`), which the ledger charges once.
 */
export class OrderRuntime {
  private readonly holds = new Map<string, Hold>();

  constructor(private readonly billing: Billing) {}

  /** Holds an order's price (402 when the balance cannot cover it); null when it already holds. */
  hold(context: Pick<OrderContext, 'id' | 'accountId' | 'tokenId' | 'priceMicros'>, force = false): Hold | null {
    if (this.holds.has(context.id)) return null;
    const hold = this.billing.hold({
      accountId: context.accountId,
      tokenId: context.tokenId,
      amount: context.priceMicros,
      force,
    });
    this.holds.set(context.id, hold);
    return hold;
  }

  /** Gives back a hold whose approval was not taken after all; another's hold is left alone. */
  release(orderId: string, hold: Hold | null): void {
    if (!hold) return;
    if (this.holds.get(orderId) === hold) this.holds.delete(orderId);
    this.billing.release(hold);
  }

  private async settle(input: OrderSettleInput): Promise<{ chargedMicros: number }> {
    const hold = this.holds.get(input.orderId) ?? null;
    this.holds.delete(input.orderId);
    const entry = await this.billing.settle(hold ? [hold] : [], {
      ref: `order:${input.orderId}`,
      accountId: input.accountId,
      tokenId: input.tokenId,
      cap: input.priceMicros,
      charge: input.priceMicros,
      description: input.description,
      requestId: null,
      model: null,
      promptTokens: 0,
      completionTokens: 0,
    });
    // Null: this reference was charged before a restart; the charge stands at the price.
    return { chargedMicros: entry ? -entry.amount : input.priceMicros };
  }

  private releaseHold(orderId: string): Promise<void> {
    const hold = this.holds.get(orderId);
    if (hold) this.release(orderId, hold);
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
