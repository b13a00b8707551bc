import type { OrderService } from '../../actors/marketplace/order-service.js';
import { DocsLibrary } from '../../actors/mcp/docs-library.js';
import { docsTools } from '../../actors/mcp/docs-tools.js';
import { McpAccess } from '../../actors/mcp/mcp-access.js';
import { productTools } from '../../actors/mcp/product-tools.js';
import { JoseOidcIssuer } from '../../backends/oidc/jose-oidc-issuer.js';
import { listFiles, readTextFiles } from '../../runtime/blobs/file-tree.js';
import type { Clock } from '../../runtime/clock.js';
import type { Config } from '../../runtime/config.js';
import type { Logger } from '../../runtime/logger.js';
import { SOURCE_ROOT } from '../../runtime/source-root.js';
import type { AppDeps } from '../app-deps.js';
import { ClientCapabilities } from '../mcp/client-capabilities.js';
import type { McpWiring } from '../mcp/mcp-wiring.js';
import { ServerRequests } from '../mcp/server-requests.js';
import type { ApiContract } from '../openapi/openapi-document.js';

/** The public docs pages: the README, docs/*.md and the bench method. */
async function loadDocPages(): Promise<{ path: string; text: string }[]> {
  const paths = ['README.md', ...(await listFiles(SOURCE_ROOT, 'docs', '.md')), 'bench/README.md'];
  return readTextFiles(SOURCE_ROOT, paths);
}

/** MCP: docs and product tools over the feature facades, OAuth access when an issuer is configured. */
export function createMcp(
  config: Config,
  parts: { clock: Clock; logger: Logger; orders: OrderService; contract: ApiContract } & Pick<
    AppDeps,
    'completions' | 'chat' | 'media' | 'services' | 'auth'
  >,
): McpWiring {
  const { clock, logger, orders, contract } = parts;
  const issuer =
    config.SVC_OIDC_ISSUER && config.SVC_OIDC_AUDIENCE
      ? new JoseOidcIssuer({ issuer: config.SVC_OIDC_ISSUER, audience: config.SVC_OIDC_AUDIENCE, clock })
      : null;
  const access = new McpAccess({
    auth: parts.auth,
    accounts: parts.services.accounts,
    issuer,
    accountClaim: config.SVC_OIDC_ACCOUNT_CLAIM,
    clock,
    logger,
    checkIntervalMs: config.SVC_OIDC_CHECK_INTERVAL_S * 1000,
    retryMs: config.SVC_OIDC_RETRY_S * 1000,
  });
  return {
    docsTools: docsTools({ library: new DocsLibrary(loadDocPages), contract: () => contract.document() }),
    productTools: productTools({
      completions: parts.completions,
      latency: parts.chat.latency,
      media: parts.media,
      orders,
      earlyAccess: parts.services.earlyAccess,
    }),
    access,
    orders,
    capabilities: new ClientCapabilities(clock, { maxEntries: 10_000, ttlMs: 24 * 3600 * 1000 }),
    serverRequests: new ServerRequests(),
    elicitTimeoutMs: 120_000,
  };
}
