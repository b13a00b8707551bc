import { ApiError } from '../../protocols/errors.js';
import type { OrderAction, OrderState } from '../../protocols/marketplace.js';
import type { Clock } from '../../runtime/clock.js';
import type { ActorHost, ActorRecord, HostedMachine } from '../../runtime/host/actor-host.js';
import { newId } from '../../runtime/ids.js';
import type { Store, Table } from '../../runtime/store/store.js';
import type { Billing } from '../billing/billing.js';
import type { ListingRecord } from './listings-fixture.js';
import { ListingRepo } from './listing-repo.js';
import {
  ORDER_MACHINE,
  type OrderContext,
  type OrderEvent,
  type OrderInput,
  type OrderMachineState,
} from './order-machine.js';
import { OrderRuntime } from './order-runtime.js';

/** Who acts on orders: the account, and the API token the charge counts against (null for OAuth callers). */
export interface OrderCaller {
  accountId: string;
  tokenId: string | null;
}

/** An order as callers see it: its public state and its context. */
export interface OrderView {
  status: OrderState;
  order: OrderContext;
}

/** A state-changing action the caller must still approve, with the order it concerns. */
export interface ProposedAction extends OrderView {
  approvalId: string;
  action: OrderAction;
}

/** What a confirmation must match: the action and the arguments of the first call. */
export type ConfirmExpectation =
  | { action: 'order'; listingId: string; quantity: number }
  | { action: 'accept'; orderId: string }
  | { action: 'cancel'; orderId: string };

/** What the marketplace runs on. */
export interface OrderServiceOptions {
  host: ActorHost;
  billing: Billing;
  store: Store;
  clock: Clock;
  /** How long a pending action can be confirmed. */
  approvalTtlMs: number;
}

/** What one approval id was issued for. */
interface ApprovalRecord {
  orderId: string;
  accountId: string;
  action: OrderAction;
}

/** The public state of a machine state: the transient money steps show as the state they come from. */
function publicState(value: OrderMachineState): OrderState {
  if (value === 'accepting' || value === 'releasing') return 'placed';
  return value;
}

/** A confirmation must repeat the call that asked for the approval: the same action and arguments. */
function assertMatches(order: OrderContext, approval: ApprovalRecord, expected: ConfirmExpectation): void {
  const same =
    expected.action === approval.action &&
    (expected.action === 'order'
      ? expected.listingId === order.listingId && expected.quantity === order.quantity
      : expected.orderId === order.id);
  if (!same) {
    throw new ApiError(
      'approval_mismatch',
      "The approval was given for another call: repeat the first call's arguments exactly, or call again without approval_id.",
      { param: 'approval_id' },
    );
  }
}

/** An order's state and context from its record. */
export function orderOf(record: ActorRecord): OrderView {
  const snapshot = record.snapshot as { value: OrderMachineState; context: OrderContext };
  return { status: publicState(snapshot.value), order: snapshot.context };
}

/**
 * The marketplace as callers (the MCP tools) see it: listings, and orders that change state only
 * through explicit approval. Each order is a durable actor; {@link propose} and
 * {@link requestChange} return a pending action and move no money; {@link confirm} carries out
 * exactly the action that was approved (the same arguments, before it expired), once: a repeated
 * confirmation answers with the order as it is. Another account's order is 404.
 */
export class OrderService {
  readonly listings: ListingRepo;
  private readonly runtime: OrderRuntime;
  /** approval id → what it approves (order, owner, action), so a confirmation finds and checks its order. */
  private readonly approvals: Table<ApprovalRecord>;

  constructor(private readonly options: OrderServiceOptions) {
    this.listings = new ListingRepo(options.store);
    this.runtime = new OrderRuntime(options.billing);
    this.approvals = options.store.table('marketplace_approvals');
  }

  /** The order machine, ready to register with the host. */
  hosted(): HostedMachine {
    return this.runtime.hosted();
  }

  /** One listing; 404 when unknown. */
  listing(listingId: string): ListingRecord {
    const listing = this.listings.get(listingId);
    if (!listing) throw new ApiError('not_found', `No listing ${listingId}.`, { param: 'listing_id' });
    return listing;
  }

  /** The caller's orders, newest first (of `status` when given). */
  list(accountId: string, options: { status?: OrderState; limit: number }): OrderView[] {
    const out: OrderView[] = [];
    // The host lists by owner newest first; filter as we go, reading at most a bounded number of records.
    for (const record of this.options.host.list(ORDER_MACHINE, accountId, 1000)) {
      const view = orderOf(record);
      if (options.status === undefined || view.status === options.status) out.push(view);
      if (out.length >= options.limit) break;
    }
    return out;
  }

  /** One of the caller's orders; 404 when it is not theirs or does not exist. */
  get(accountId: string, orderId: string): OrderView {
    return orderOf(this.load(accountId, orderId));
  }

  /** Proposes an order of `quantity` × a listing: an order in `pending_approval` holding nothing. */
  async propose(caller: OrderCaller, listingId: string, quantity: number): Promise<ProposedAction> {
    const { host, clock, approvalTtlMs } = this.options;
    const listing = this.listing(listingId);
    if (!listing.available)
      throw new ApiError('conflict', `Listing ${listingId} is not available to order now.`, {
        param: 'listing_id',
      });
    const id = newId('ord');
    const approvalId = newId('act');
    await this.approvals.put(approvalId, { orderId: id, accountId: caller.accountId, action: 'order' });
    const input: OrderInput = {
      id,
      accountId: caller.accountId,
      tokenId: caller.tokenId,
      listingId,
      listingTitle: listing.title,
      seller: listing.seller,
      quantity,
      unitPriceMicros: listing.unitPriceMicros,
      approvalId,
      at: clock.now(),
      approvalTtlMs,
    };
    await host.spawn(ORDER_MACHINE, { id, ownerId: caller.accountId, input });
    return { ...this.get(caller.accountId, id), approvalId, action: 'order' };
  }

  /** Asks to accept or cancel an order: a pending action on it, nothing else changes. */
  async requestChange(
    caller: OrderCaller,
    orderId: string,
    action: 'accept' | 'cancel',
    reason: string | null,
  ): Promise<ProposedAction> {
    const { host, clock } = this.options;
    const record = this.load(caller.accountId, orderId);
    const approvalId = newId('act');
    const event: OrderEvent = { type: 'REQUEST', action, approvalId, reason, at: clock.now() };
    if (!host.accepts(record.id, event)) throw this.notNow(record, action);
    await this.approvals.put(approvalId, { orderId, accountId: caller.accountId, action });
    await host.send(record.id, event);
    return { ...this.get(caller.accountId, orderId), approvalId, action };
  }

  /**
   * Carries out the action `approvalId` approved, once, if the call matches the one that asked
   * for it and it has not expired: places the order (holding its price; 402 when it does not fit),
   * accepts it (charging the price) or cancels it (giving the hold back).
   */
  async confirm(caller: OrderCaller, approvalId: string, expected: ConfirmExpectation): Promise<OrderView> {
    const { host, clock } = this.options;
    const { record, approval } = this.approvedOrder(caller.accountId, approvalId);
    const { order } = orderOf(record);
    assertMatches(order, approval, expected);
    if (order.carriedOut.includes(approvalId)) return this.settled(caller.accountId, record.id);
    const pending = order.pending;
    if (!pending || pending.id !== approvalId)
      throw new ApiError(
        'approval_expired',
        `Approval ${approvalId} was superseded or has lapsed; call again without approval_id for a new one.`,
        { param: 'approval_id' },
      );
    const at = clock.now();
    if (at > pending.expiresAt)
      throw new ApiError(
        'approval_expired',
        `Approval ${approvalId} expired at ${new Date(pending.expiresAt).toISOString()}; call again without approval_id for a new one.`,
        { param: 'approval_id' },
      );
    if (pending.action === 'order') {
      const event: OrderEvent = { type: 'APPROVE', approvalId, at };
      if (!host.accepts(record.id, event)) throw this.notNow(record, 'order');
      const hold = this.runtime.hold(order);
      try {
        await host.send(record.id, event);
      } catch (err) {
        this.runtime.release(record.id, hold);
        throw err;
      }
      return this.get(caller.accountId, record.id);
    }
    const event: OrderEvent = { type: 'CONFIRM', approvalId, at };
    if (!host.accepts(record.id, event)) throw this.notNow(record, pending.action);
    await host.send(record.id, event);
    return this.settled(caller.accountId, record.id);
  }

  /** The caller said no to a pending action (asked through MCP elicitation): a proposal is cancelled, an accept or cancel dropped. */
  async decline(caller: OrderCaller, approvalId: string): Promise<OrderView> {
    const { host, clock } = this.options;
    const { record } = this.approvedOrder(caller.accountId, approvalId);
    await host.send(record.id, { type: 'DECLINE', approvalId, at: clock.now() });
    return this.get(caller.accountId, record.id);
  }

  /** The order once its money step (charge or release) has ended. */
  private async settled(accountId: string, orderId: string): Promise<OrderView> {
    await this.options.host.waitFor(
      orderId,
      (snapshot) => snapshot.value !== 'accepting' && snapshot.value !== 'releasing',
    );
    const view = this.get(accountId, orderId);
    if (view.order.lastError) throw new Error(`order ${orderId} could not be charged: ${view.order.lastError}`);
    return view;
  }

  private approvedOrder(accountId: string, approvalId: string): { record: ActorRecord; approval: ApprovalRecord } {
    const approval = this.approvals.get(approvalId);
    if (!approval || approval.accountId !== accountId)
      throw new ApiError('not_found', `No pending action ${approvalId}.`, { param: 'approval_id' });
    return { record: this.load(accountId, approval.orderId), approval };
  }

  private notNow(record: ActorRecord, action: OrderAction): ApiError {
    const { status } = orderOf(record);
    return new ApiError(
      'conflict',
      `Order ${record.id} is ${status}: it cannot be ${action === 'order' ? 'placed' : action === 'accept' ? 'accepted' : 'cancelled'} now.`,
    );
  }

  private load(accountId: string, orderId: string): ActorRecord {
    const record = this.options.host.find(orderId, accountId);
    if (!record || record.machine !== ORDER_MACHINE)
      throw new ApiError('not_found', `No order ${orderId}.`, { param: 'order_id' });
    return record;
  }
}
