import type { McpAccess } from '../../actors/mcp/mcp-access.js';
import type { McpTool } from '../../actors/mcp/mcp-tool.js';
import type { OrderService } from '../../actors/marketplace/order-service.js';
import type { ClientCapabilities } from './client-capabilities.js';
import type { ServerRequests } from './server-requests.js';

/** What the MCP routes serve: both endpoints' tools, who may call the product one, and the relays between requests. */
export interface McpWiring {
  docsTools: readonly McpTool[];
  productTools: readonly McpTool[];
  access: McpAccess;
  orders: OrderService;
  capabilities: ClientCapabilities;
  serverRequests: ServerRequests;
  /** How long a tool waits for the user's answer to an elicitation. */
  elicitTimeoutMs: number;
}
