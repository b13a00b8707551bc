import {
  McpRequestBodySchema,
  McpResponseBodySchema,
  OAuthStatusObjectSchema,
  ProtectedResourceMetadataSchema,
  RESOURCE_METADATA_PATH,
} from '../../protocols/mcp.js';
import { ApiError } from '../../protocols/errors.js';
import type { AppDeps } from '../app-deps.js';
import type { Exchange } from '../exchange.js';
import type { McpEndpointOptions } from '../mcp/mcp-endpoint.js';
import { lazyModule } from '../../runtime/lazy-module.js';
import { json, type RouteDef } from '../route.js';

const VERSION = '0.1.0';

/**
 * JSON-RPC in; JSON-RPC out as JSON, or as SSE when the server asks the client something mid-call
 * (elicitation); 202 with no body for notifications only.
 */
const MCP_SCHEMA = {
  body: McpRequestBodySchema,
  response: McpResponseBodySchema,
  events: McpResponseBodySchema,
} as const;

/** The MCP SDK (with its JSON Schema validator) loads with the first MCP request, not at start. */
const loadEndpoint = lazyModule(() => import('../mcp/mcp-endpoint.js'));

/** This server's public origin: SVC_PUBLIC_URL, else the Host the client reached (so the metadata names what it called). */
function originOf(deps: AppDeps, ex: Exchange): string {
  if (deps.config.SVC_PUBLIC_URL) return deps.config.SVC_PUBLIC_URL.replace(/\/$/, '');
  return `${deps.config.SVC_TLS_CERT_FILE ? 'https' : 'http'}://${ex.headers.host ?? `${deps.config.HOST}:${deps.config.PORT}`}`;
}

const DOCS_INSTRUCTIONS =
  'Public, read-only documentation of the svc API: search and fetch pages, inspect the OpenAPI contract, read the changelog and the benchmark methodology. No token needed; nothing here changes state.';
const PRODUCT_INSTRUCTIONS =
  'The svc product tools: invoke pro-1 (billed like POST /v1/chat/completions), list models, estimate; browse the marketplace and manage your orders. place_order, accept_order and cancel_order never act on the first call: they return a pending action with what will happen and what it costs; repeat the call with its approval_id only after the user approved.';

/** The MCP endpoints (stateless streamable HTTP), the OAuth readiness status and the RFC 9728 metadata. */
export function mcpRoutes(deps: AppDeps): RouteDef[] {
  const { mcp, logger } = deps;
  const endpoint = (ex: Exchange, product: boolean): McpEndpointOptions => ({
    name: product ? 'svc' : 'svc-docs',
    version: VERSION,
    instructions: product ? PRODUCT_INSTRUCTIONS : DOCS_INSTRUCTIONS,
    tools: product ? mcp.productTools : mcp.docsTools,
    access: product ? mcp.access : null,
    capabilities: mcp.capabilities,
    serverRequests: mcp.serverRequests,
    logger,
    origin: originOf(deps, ex),
    elicitTimeoutMs: mcp.elicitTimeoutMs,
  });
  const metadata = async (ex: Exchange) => {
    const origin = originOf(deps, ex);
    const body = await mcp.access.metadata(`${origin}/mcp`, `${origin}/mcp/docs`);
    if (!body)
      throw new ApiError(
        'not_found',
        'No protected resource metadata: OAuth is not configured, or the issuer has not passed its live check yet (see GET /mcp/oauth/status).',
      );
    return json(body);
  };
  const metadataSchema = {
    summary: 'RFC 9728 protected resource metadata of /mcp (404 until the issuer passes its live check)',
    response: ProtectedResourceMetadataSchema,
  };
  return [
    {
      method: 'POST',
      path: '/mcp/docs',
      auth: 'public',
      schema: { summary: 'Public read-only MCP endpoint (stateless streamable HTTP, JSON-RPC 2.0)', ...MCP_SCHEMA },
      handler: async (ctx) => (await loadEndpoint()).serveMcp(ctx, endpoint(ctx.ex, false)),
    },
    {
      method: 'POST',
      path: '/mcp',
      // The endpoint authenticates itself: an API token or, with OAuth on, an access token.
      auth: 'public',
      schema: {
        summary: 'Product MCP endpoint: API token or OAuth 2.1 access token (stateless streamable HTTP, JSON-RPC 2.0)',
        ...MCP_SCHEMA,
        security: ['apiToken', 'oauthAccessToken'],
      },
      handler: async (ctx) => (await loadEndpoint()).serveMcp(ctx, endpoint(ctx.ex, true)),
    },
    {
      method: 'GET',
      path: '/mcp/oauth/status',
      auth: 'public',
      schema: {
        summary: 'OAuth readiness of /mcp: configured, issuer reachable, last live check; no secrets',
        response: OAuthStatusObjectSchema,
      },
      handler: async (ctx) => json(await mcp.access.status(`${originOf(deps, ctx.ex)}/mcp`)),
    },
    {
      method: 'GET',
      path: RESOURCE_METADATA_PATH,
      auth: 'public',
      schema: metadataSchema,
      handler: (ctx) => metadata(ctx.ex),
    },
    {
      method: 'GET',
      path: `${RESOURCE_METADATA_PATH}/mcp`,
      auth: 'public',
      schema: metadataSchema,
      handler: (ctx) => metadata(ctx.ex),
    },
  ];
}
