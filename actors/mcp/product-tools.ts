import { svcOfResult } from '../chat/result-svc.js';
import type { ChatBackend } from '../../backends/chat-backend.js';
import { ChatCompletionRequestSchema } from '../../protocols/chat.js';
import { completionObject } from '../../protocols/chat-response.js';
import {
  AcceptOrderInputSchema,
  CancelOrderInputSchema,
  EstimateInputSchema,
  InvokeInputSchema,
  ListListingsInputSchema,
  ListModelsInputSchema,
  ListOrdersInputSchema,
  PlaceOrderInputSchema,
} from '../../protocols/mcp.js';
import type { OrderAction } from '../../protocols/marketplace.js';
import { MODEL_CATALOGUE, requireModel } from '../../protocols/models.js';
import type { EarlyAccessProduct } from '../../protocols/payments.js';
import { parseOrThrow } from '../../protocols/validation.js';
import type { AccountRecord } from '../accounts/account-repo.js';
import type { MediaEstimates } from '../billing/media-estimates.js';
import { estimateChat } from '../chat/chat-estimate.js';
import type { ChatService } from '../chat/chat-service.js';
import type { ConfirmExpectation, OrderService, OrderView, ProposedAction } from '../marketplace/order-service.js';
import { actionResult, approvalRequired, listingObject, orderObject } from './marketplace-views.js';
import { callerOf, defineTool, READ_ONLY, type McpTool, type ToolContext, type ToolResult } from './mcp-tool.js';

/** What the product tools call: the feature facades, never routes. */
export interface ProductToolsDeps {
  completions: ChatService;
  /** The chat backend's latency model, for chat estimates. */
  latency: ChatBackend['latency'];
  media: MediaEstimates;
  orders: OrderService;
  /** The early-access check every entry point of a work-in-progress product calls. */
  earlyAccess: { assertAccess(account: AccountRecord | null, product: EarlyAccessProduct): void };
}

/** Annotations of a tool that changes state only after an explicit approval. */
const APPROVED_WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const usd = (value: number) => `${value.toFixed(6)} USD`;

/**
 * Runs a state-changing order action the way every one runs: with `approval_id`, carries out the
 * approved action; without, asks for it (a pending action, nothing carried out) and, when the
 * client supports MCP elicitation, asks the user at once and carries it out on a yes.
 */
async function approvable(
  ctx: ToolContext,
  orders: OrderService,
  approvalId: string | undefined,
  expectation: ConfirmExpectation,
  propose: () => Promise<ProposedAction>,
): Promise<ToolResult> {
  const caller = callerOf(ctx);
  const who = { accountId: caller.account.id, tokenId: caller.tokenId };
  const done = (status: 'done' | 'declined', action: OrderAction, view: OrderView): ToolResult => {
    const result = actionResult(status, action, view);
    return {
      structured: result,
      summary:
        status === 'declined'
          ? `Declined: order ${view.order.id} is ${view.status}.`
          : `Done: order ${view.order.id} is ${view.status}.`,
    };
  };
  if (approvalId !== undefined)
    return done('done', expectation.action, await orders.confirm(who, approvalId, expectation));
  const proposed = await propose();
  const pending = approvalRequired(proposed);
  const answer = await ctx.confirm(`${pending.pending_action?.summary ?? ''} Approve?`);
  if (answer === 'accept')
    return done('done', proposed.action, await orders.confirm(who, proposed.approvalId, expectation));
  if (answer === 'decline') return done('declined', proposed.action, await orders.decline(who, proposed.approvalId));
  return {
    structured: pending,
    summary: `Approval required, nothing done yet: ${pending.pending_action?.summary ?? ''} To carry it out, call ${pending.pending_action?.confirm_with.tool} again with approval_id ${proposed.approvalId} before it expires.`,
  };
}

/**
 * The tools of the product endpoint (`/mcp`), each calling a feature facade: invoke pro-1 (billed
 * as a chat completion, with the same price and `svc` block), list models, estimate; marketplace
 * listings; the caller's orders; and order, accept and cancel, which change state only after an
 * explicit approval. Each names the OAuth scope it needs.
 */
export function productTools(deps: ProductToolsDeps): McpTool[] {
  const { completions, orders } = deps;
  const marketplace = (ctx: ToolContext) => {
    const caller = callerOf(ctx);
    deps.earlyAccess.assertAccess(caller.account, 'marketplace');
    return caller;
  };
  return [
    defineTool({
      name: 'invoke_pro1',
      title: 'Invoke pro-1',
      description:
        'Runs one chat completion on pro-1 (not streamed) and returns the chat.completion object. Billed exactly like POST /v1/chat/completions; the svc block states the charge.',
      input: InvokeInputSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      scope: 'pro1:invoke',
      async run(args, ctx) {
        const caller = callerOf(ctx);
        const request = parseOrThrow(ChatCompletionRequestSchema, { ...args, stream: false });
        const model = requireModel(request.model);
        const result = await completions.complete({
          accountId: caller.account.id,
          tokenId: caller.tokenId,
          requestId: ctx.requestId,
          request,
          model,
          signal: ctx.signal,
        });
        const { outcome } = result;
        const svc = svcOfResult(result);
        const completion = completionObject(result.head, outcome.choices, outcome.usage, svc);
        const text = completion.choices[0]?.message.content ?? '';
        return { structured: completion, summary: `${text}\n\n(${completion.id}, charged ${usd(svc.price_usd)})` };
      },
    }),
    defineTool({
      name: 'list_models',
      title: 'List models',
      description:
        'The models the API serves: the moving id pro-1 and its immutable dated snapshots, with version and readiness.',
      input: ListModelsInputSchema,
      annotations: READ_ONLY,
      scope: 'pro1:invoke',
      run() {
        return Promise.resolve({
          structured: { object: 'list', data: [...MODEL_CATALOGUE] },
          summary: MODEL_CATALOGUE.map((m) => `${m.id} (${m.version}, ${m.readiness})`).join(', '),
        });
      },
    }),
    defineTool({
      name: 'estimate',
      title: 'Estimate a request',
      description:
        'What a request would cost and take, and what it would hold, as POST /v1/estimate: a chat request (messages may be left out) or, with modality, a media request. Calls no model and needs no balance.',
      input: EstimateInputSchema,
      annotations: READ_ONLY,
      scope: 'pro1:invoke',
      run(args) {
        const { modality, ...body } = args;
        const estimate =
          modality !== undefined && modality !== 'chat'
            ? deps.media.estimate(modality, body)
            : estimateChat({ model: 'pro-1', ...body }, deps.latency);
        return Promise.resolve({
          structured: estimate,
          summary: `${usd(estimate.cost_usd.min)} to ${usd(estimate.cost_usd.max)}; hold ${usd(estimate.hold_usd)}.`,
        });
      },
    }),
    defineTool({
      name: 'list_listings',
      title: 'Browse the marketplace',
      description: 'The marketplace listings (early access): what each seller offers and the price per unit.',
      input: ListListingsInputSchema,
      annotations: READ_ONLY,
      scope: 'marketplace:read',
      run({ category }, ctx) {
        marketplace(ctx);
        const data = orders.listings.list(category).map(listingObject);
        return Promise.resolve({ structured: { object: 'list', data }, summary: `${data.length} listing(s).` });
      },
    }),
    defineTool({
      name: 'list_orders',
      title: 'List my orders',
      description:
        'Your marketplace orders, newest first, each with its state and any action waiting for your approval.',
      input: ListOrdersInputSchema,
      annotations: READ_ONLY,
      scope: 'orders:read',
      run({ status, limit }, ctx) {
        const caller = marketplace(ctx);
        const data = orders
          .list(caller.account.id, { ...(status !== undefined && { status }), limit })
          .map(orderObject);
        return Promise.resolve({ structured: { object: 'list', data }, summary: `${data.length} order(s).` });
      },
    }),
    defineTool({
      name: 'place_order',
      title: 'Order a listing',
      description:
        'Orders a marketplace listing. Needs explicit approval: the first call (without approval_id) only returns a pending action saying what will happen and what it costs; call again with the same arguments and its approval_id to place the order (its price is then held, and charged when you accept).',
      input: PlaceOrderInputSchema,
      annotations: APPROVED_WRITE,
      scope: 'orders:write',
      run({ listing_id: listingId, quantity, approval_id: approvalId }, ctx) {
        const caller = marketplace(ctx);
        return approvable(ctx, orders, approvalId, { action: 'order', listingId, quantity }, () =>
          orders.propose({ accountId: caller.account.id, tokenId: caller.tokenId }, listingId, quantity),
        );
      },
    }),
    defineTool({
      name: 'accept_order',
      title: 'Accept an order',
      description:
        'Accepts a placed order: its price is charged, once. Needs explicit approval: the first call returns a pending action; call again with its approval_id to accept.',
      input: AcceptOrderInputSchema,
      annotations: APPROVED_WRITE,
      scope: 'orders:write',
      run({ order_id: orderId, approval_id: approvalId }, ctx) {
        const caller = marketplace(ctx);
        return approvable(ctx, orders, approvalId, { action: 'accept', orderId }, () =>
          orders.requestChange({ accountId: caller.account.id, tokenId: caller.tokenId }, orderId, 'accept', null),
        );
      },
    }),
    defineTool({
      name: 'cancel_order',
      title: 'Cancel an order',
      description:
        'Cancels an order that is not accepted: nothing is charged and what it holds is given back. Needs explicit approval: the first call returns a pending action; call again with its approval_id to cancel.',
      input: CancelOrderInputSchema,
      annotations: { ...APPROVED_WRITE, destructiveHint: true },
      scope: 'orders:write',
      run({ order_id: orderId, reason, approval_id: approvalId }, ctx) {
        const caller = marketplace(ctx);
        return approvable(ctx, orders, approvalId, { action: 'cancel', orderId }, () =>
          orders.requestChange(
            { accountId: caller.account.id, tokenId: caller.tokenId },
            orderId,
            'cancel',
            reason ?? null,
          ),
        );
      },
    }),
  ];
}
