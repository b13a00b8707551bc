import { z } from 'zod';
import { ChatMessageSchema, RESPONSE_MODES } from './chat.js';
import { ApprovalIdSchema, ListingIdSchema, MAX_ORDER_QUANTITY, ORDER_STATES, OrderIdSchema } from './marketplace.js';
import { MEDIA_MODALITIES } from './pricing.js';

/** Where the RFC 9728 protected resource metadata of `/mcp` is published. */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** OAuth scopes of the product tool endpoint (spec 5.6): one per group of tools. */
export const MCP_SCOPES = ['pro1:invoke', 'marketplace:read', 'orders:read', 'orders:write'] as const;

/** One OAuth scope of the product tools. */
export type McpScope = (typeof MCP_SCOPES)[number];

// ---- Docs tools (/mcp/docs): read-only, public ----

/** search_docs: ranked sections of the public docs with snippets. */
export const SearchDocsInputSchema = z.strictObject({
  query: z.string().trim().min(1).max(200).describe('Words to look for, for example "idempotency key sessions".'),
  limit: z.number().int().min(1).max(20).default(5).describe('How many sections to return (1 to 20).'),
});

/** fetch_doc: one page of the public docs, as Markdown, in slices. */
export const FetchDocInputSchema = z.strictObject({
  path: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .describe('The page, as search_docs names it (for example "docs/chat.md"), or its short name ("chat").'),
  offset: z
    .number()
    .int()
    .min(0)
    .default(0)
    .describe('Character offset to start at (for pages longer than max_chars).'),
  max_chars: z.number().int().min(200).max(100_000).default(20_000).describe('Most characters to return.'),
});

/** get_api_contract: the OpenAPI document, its index, or one operation. */
export const ApiContractInputSchema = z.strictObject({
  operation: z
    .string()
    .trim()
    .min(1)
    .max(300)
    .optional()
    .describe(
      'One operation: "METHOD /path" as in the document (for example "POST /v1/chat/completions") or its operationId.',
    ),
  full: z.boolean().default(false).describe('The whole OpenAPI 3.1 document instead of the index.'),
});

/** get_changelog: the API changelog, newest first. */
export const ChangelogInputSchema = z.strictObject({
  limit: z.number().int().min(1).max(100).default(20).describe('How many entries to return, newest first.'),
});

/** get_benchmark_methodology: how the public benchmark figures are measured and published. */
export const BenchmarkMethodologyInputSchema = z.strictObject({});

// ---- Product tools (/mcp): token or OAuth ----

/** invoke_pro1: one billed chat completion (not streamed), charged as POST /v1/chat/completions. */
export const InvokeInputSchema = z.strictObject({
  model: z.string().min(1).max(100).default('pro-1').describe('pro-1 or a dated snapshot pro-1-YYYY-MM-DD.'),
  messages: z.array(ChatMessageSchema).min(1).max(4096).describe('The conversation, as in chat completions.'),
  max_tokens: z.number().int().min(1).max(1_000_000).optional().describe('Most output tokens.'),
  temperature: z.number().min(0).max(2).optional(),
  response_mode: z.enum(RESPONSE_MODES).optional().describe('auto (default) lets the service pick the depth.'),
});

/** list_models: the model list. */
export const ListModelsInputSchema = z.strictObject({});

/** estimate: what a request would cost and take (no model call, no balance needed), as POST /v1/estimate. */
export const EstimateInputSchema = z.looseObject({
  modality: z
    .enum(['chat', ...MEDIA_MODALITIES])
    .optional()
    .describe('chat (default) or a media modality.'),
  model: z.string().optional(),
  messages: z.array(z.unknown()).optional().describe('For chat: the messages; may be left out.'),
});

/** list_listings: the marketplace listings. */
export const ListListingsInputSchema = z.strictObject({
  category: z.string().trim().min(1).max(100).optional().describe('Only listings of this category.'),
});

/** list_orders: the caller's orders, newest first. */
export const ListOrdersInputSchema = z.strictObject({
  status: z.enum(ORDER_STATES).optional(),
  limit: z.number().int().min(1).max(100).default(20),
});

const approval = ApprovalIdSchema.optional().describe(
  'Leave out on the first call: it returns a pending action saying what will happen and what it costs. Send the approval id it gave, with the same other arguments, to carry it out.',
);

/** place_order: order a listing (needs approval). */
export const PlaceOrderInputSchema = z.strictObject({
  listing_id: ListingIdSchema,
  quantity: z.number().int().min(1).max(MAX_ORDER_QUANTITY).default(1),
  approval_id: approval,
});

/** accept_order: accept a placed order; its price is charged (needs approval). */
export const AcceptOrderInputSchema = z.strictObject({ order_id: OrderIdSchema, approval_id: approval });

/** cancel_order: cancel an order that is not accepted; what it holds is given back (needs approval). */
export const CancelOrderInputSchema = z.strictObject({
  order_id: OrderIdSchema,
  reason: z.string().trim().min(1).max(200).optional(),
  approval_id: approval,
});

/**
 * `error.data` of every JSON-RPC error a tool answers with: the API's own error (code, type,
 * status, param) and the request id, as the HTTP API would have answered.
 */
export const McpErrorDataSchema = z.strictObject({
  status: z.number().int(),
  code: z.string(),
  type: z.string(),
  param: z.string().nullable(),
  request_id: z.string(),
  detail: z
    .array(z.strictObject({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() }))
    .optional(),
});

/** The error data on the wire. */
export type McpErrorData = z.output<typeof McpErrorDataSchema>;

// ---- OAuth readiness and discovery ----

/** One check of the live issuer conformance check. */
export const IssuerCheckSchema = z.strictObject({ name: z.string(), ok: z.boolean(), detail: z.string() });

/** GET /mcp/oauth/status: safe readiness; no secret, no token, no key material. */
export const OAuthStatusObjectSchema = z.strictObject({
  object: z.literal('mcp.oauth_status'),
  configured: z.boolean(),
  issuer: z.string().nullable(),
  audience: z.string().nullable(),
  resource: z.string().nullable(),
  scopes_supported: z.array(z.string()),
  issuer_reachable: z.boolean().nullable(),
  metadata_published: z.boolean(),
  api_tokens_accepted: z.literal(true),
  last_check: z
    .strictObject({
      checked_at: z.number().int(),
      ok: z.boolean(),
      duration_ms: z.number().int(),
      checks: z.array(IssuerCheckSchema),
    })
    .nullable(),
  next_check_at: z.number().int().nullable(),
});

/** The OAuth status on the wire. */
export type OAuthStatusObject = z.output<typeof OAuthStatusObjectSchema>;

/** RFC 9728 OAuth 2.0 Protected Resource Metadata of the product tool endpoint. */
export const ProtectedResourceMetadataSchema = z.strictObject({
  resource: z.string(),
  authorization_servers: z.array(z.string()),
  scopes_supported: z.array(z.string()),
  bearer_methods_supported: z.array(z.literal('header')),
  resource_name: z.string(),
  resource_documentation: z.string(),
});

/** The protected resource metadata on the wire. */
export type ProtectedResourceMetadata = z.output<typeof ProtectedResourceMetadataSchema>;

/** A JSON-RPC 2.0 message as the MCP endpoints take it (one, or a batch). */
export const JsonRpcMessageSchema = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number()]).optional(),
  method: z.string().optional(),
  params: z.unknown().optional(),
  result: z.unknown().optional(),
  error: z.unknown().optional(),
});

/** The body of a POST to an MCP endpoint. */
export const McpRequestBodySchema = z.union([JsonRpcMessageSchema, z.array(JsonRpcMessageSchema).min(1).max(100)]);

/** A JSON-RPC 2.0 response from an MCP endpoint: a result, or an error with our code in `data`. */
export const JsonRpcResponseSchema = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number(), z.null()]),
  result: z.unknown().optional(),
  error: z.looseObject({ code: z.int(), message: z.string(), data: z.unknown().optional() }).optional(),
});

/** What a POST to an MCP endpoint answers as JSON: one response, or a batch. */
export const McpResponseBodySchema = z.union([JsonRpcResponseSchema, z.array(JsonRpcResponseSchema)]);

/**
 * The JSON-RPC error code a tool answers an API error with: invalid params for bad input (400,
 * 422), `-32000 - (status - 400)` for the other client errors (401 → -32001, 404 → -32004, 409 →
 * -32009, …) and internal error for 5xx. `error.data` carries the API's own code.
 */
export function jsonRpcCodeOf(status: number): number {
  if (status === 400 || status === 422) return -32602;
  if (status >= 400 && status < 500) return -32000 - (status - 400);
  return -32603;
}
