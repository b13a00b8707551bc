import type {
  ListingObject,
  OrderActionResult,
  OrderObject,
  PendingActionObject,
} from '../../protocols/marketplace.js';
import { microsToUsd } from '../../protocols/money.js';
import type { ListingRecord } from '../marketplace/listings-fixture.js';
import type { OrderView, ProposedAction } from '../marketplace/order-service.js';

/** A listing on the wire. */
export function listingObject(listing: ListingRecord): ListingObject {
  return {
    id: listing.id,
    object: 'marketplace.listing',
    title: listing.title,
    seller: listing.seller,
    category: listing.category,
    description: listing.description,
    unit: listing.unit,
    price_usd: microsToUsd(listing.unitPriceMicros),
    available: listing.available,
  };
}

const TOOL_OF = { order: 'place_order', accept: 'accept_order', cancel: 'cancel_order' } as const;

/** The pending action of an order, with the exact call that confirms it; null when none is pending. */
function pendingObject({ status, order }: OrderView): PendingActionObject | null {
  const pending = order.pending;
  if (!pending) return null;
  const price = microsToUsd(order.priceMicros);
  const held = status === 'placed' ? order.heldMicros : 0;
  const byAction = {
    order: {
      summary: `Place an order for ${order.quantity} × "${order.listingTitle}" from ${order.seller} at ${microsToUsd(order.unitPriceMicros)} USD each: ${price} USD is held from your balance now and charged only when you accept the order.`,
      cost: price,
      money: { holds_usd: price, charges_usd: 0, releases_usd: 0 },
      args: { listing_id: order.listingId, quantity: order.quantity, approval_id: pending.id },
    },
    accept: {
      summary: `Accept order ${order.id} (${order.quantity} × "${order.listingTitle}"): ${price} USD is charged to your balance, once; this cannot be undone.`,
      cost: price,
      money: { holds_usd: 0, charges_usd: price, releases_usd: 0 },
      args: { order_id: order.id, approval_id: pending.id },
    },
    cancel: {
      summary: `Cancel order ${order.id} (${order.quantity} × "${order.listingTitle}"): nothing is charged${held > 0 ? ` and the ${microsToUsd(held)} USD held is given back` : ''}.`,
      cost: 0,
      money: { holds_usd: 0, charges_usd: 0, releases_usd: microsToUsd(held) },
      args: { order_id: order.id, ...(pending.reason !== null && { reason: pending.reason }), approval_id: pending.id },
    },
  }[pending.action];
  return {
    object: 'pending_action',
    id: pending.id,
    action: pending.action,
    order_id: order.id,
    summary: byAction.summary,
    cost_usd: byAction.cost,
    money: byAction.money,
    expires_at: Math.floor(pending.expiresAt / 1000),
    confirm_with: { tool: TOOL_OF[pending.action], arguments: byAction.args },
  };
}

/** An order on the wire. */
export function orderObject(view: OrderView): OrderObject {
  const { status, order } = view;
  return {
    id: order.id,
    object: 'marketplace.order',
    listing_id: order.listingId,
    listing_title: order.listingTitle,
    seller: order.seller,
    quantity: order.quantity,
    unit_price_usd: microsToUsd(order.unitPriceMicros),
    price_usd: microsToUsd(order.priceMicros),
    status,
    held_usd: microsToUsd(status === 'placed' ? order.heldMicros : 0),
    charged_usd: microsToUsd(order.chargedMicros),
    cancel_reason: order.cancelReason,
    pending_action: pendingObject(view),
    created_at: Math.floor(order.createdAt / 1000),
    updated_at: Math.floor(order.updatedAt / 1000),
  };
}

/** A first call's answer: nothing done yet, the pending action to confirm. */
export function approvalRequired(proposed: ProposedAction): OrderActionResult {
  return {
    object: 'marketplace.order_action',
    status: 'approval_required',
    action: proposed.action,
    order: orderObject(proposed),
    pending_action: pendingObject(proposed),
  };
}

/** A carried-out (or declined) action's answer. */
export function actionResult(
  status: 'done' | 'declined',
  action: ProposedAction['action'],
  view: OrderView,
): OrderActionResult {
  return {
    object: 'marketplace.order_action',
    status,
    action,
    order: orderObject(view),
    pending_action: pendingObject(view),
  };
}
