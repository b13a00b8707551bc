import { z } from 'zod';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ElicitResultSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpAccess, McpCaller } from '../../actors/mcp/mcp-access.js';
import { hasScope } from '../../actors/mcp/mcp-access.js';
import type { Confirmation, McpTool, ToolContext } from '../../actors/mcp/mcp-tool.js';
import { ApiError, ensureError } from '../../protocols/errors.js';
import { jsonRpcCodeOf, McpRequestBodySchema, type McpErrorData } from '../../protocols/mcp.js';
import { parseOrThrow } from '../../protocols/validation.js';
import type { Logger } from '../../runtime/logger.js';
import type { RequestContext } from '../route.js';
import type { ClientCapabilities } from './client-capabilities.js';
import type { ServerRequests } from './server-requests.js';
import { sendWebResponse, webRequestOf } from './web-exchange.js';
import { RESOURCE_METADATA_PATH } from '../../protocols/mcp.js';

/** What one MCP endpoint serves and who may call it. */
export interface McpEndpointOptions {
  name: string;
  version: string;
  instructions: string;
  tools: readonly McpTool[];
  /** Null: a public endpoint (no token read, no caller). */
  access: McpAccess | null;
  capabilities: ClientCapabilities;
  serverRequests: ServerRequests;
  logger: Logger;
  /** This server's public origin, for the resource metadata URL. */
  origin: string;
  /** How long a tool waits for the user's answer to an elicitation before falling back to two calls. */
  elicitTimeoutMs: number;
}

/** The path of the RFC 9728 metadata of the product endpoint. */

type RpcMessage = { id?: unknown; method?: string; params?: unknown };

/**
 * A JSON-RPC error as the SDK's protocol layer sends it (it reads `code`, `message`, `data`);
 * not an `McpError`, whose constructor would prefix the message with its code.
 */
class ToolCallError extends Error {
  override name = 'ToolCallError';
  constructor(
    readonly code: number,
    message: string,
    readonly data: McpErrorData,
  ) {
    super(message);
  }
}

/** An API error as the JSON-RPC error a tool call answers with: our code, type and status in `data`. */
function toRpcError(err: unknown, requestId: string): ToolCallError {
  if (!(err instanceof ApiError))
    return new ToolCallError(-32603, `Internal error; report request_id ${requestId} if it persists.`, {
      status: 500,
      code: 'internal_error',
      type: 'server_error',
      param: null,
      request_id: requestId,
    });
  const data: McpErrorData = {
    status: err.status,
    code: err.code,
    type: err.type,
    param: err.param,
    request_id: requestId,
    ...(err.detail && { detail: err.detail }),
  };
  return new ToolCallError(jsonRpcCodeOf(err.status), err.message, data);
}

/** The tool a `tools/call` names, when the caller lacks its scope (checked before the SDK runs). */
function missingScope(
  messages: readonly RpcMessage[],
  tools: readonly McpTool[],
  caller: McpCaller,
): McpTool | undefined {
  for (const message of messages) {
    if (message.method !== 'tools/call') continue;
    const name = (message.params as { name?: unknown } | undefined)?.name;
    const tool = tools.find((t) => t.name === name);
    if (tool && !hasScope(caller, tool.scope)) return tool;
  }
  return undefined;
}

/**
 * Serves one POST of a stateless streamable-HTTP MCP endpoint with the official SDK: a fresh
 * SDK server and web-standard transport per request, bridged onto our exchange. On the product
 * endpoint the caller is authenticated first (401 with `WWW-Authenticate`), a tool call without its
 * scope is a 403 `insufficient_scope` challenge, and answers to a server's earlier requests
 * (elicitations) are handed to the tool call still waiting for them.
 */
export async function serveMcp(ctx: RequestContext, options: McpEndpointOptions): Promise<undefined> {
  const { ex } = ctx;
  const metadataUrl = `${options.origin}${RESOURCE_METADATA_PATH}`;
  // Authenticate before reading the body: an anonymous caller's bytes are never parsed.
  const caller = options.access ? await options.access.authenticate(ex.headers.authorization, metadataUrl) : null;
  const body = await ctx.json(McpRequestBodySchema);
  const messages: RpcMessage[] = Array.isArray(body) ? body : [body];
  const callerKey = caller?.key ?? 'public';
  const delivered = options.serverRequests.deliver(messages, callerKey);
  if (delivered === 'delivered') {
    ex.send(202, {}, '');
    return undefined;
  }
  if (caller && options.access) {
    const tool = missingScope(messages, options.tools, caller);
    if (tool?.scope) {
      const description = `the tool ${tool.name} needs the scope ${tool.scope}`;
      throw new ApiError('insufficient_scope', `Insufficient scope: ${description}.`, {
        headers: {
          'www-authenticate': options.access.challenge(metadataUrl, {
            code: 'insufficient_scope',
            description,
            scope: tool.scope,
          }),
        },
      });
    }
  }
  const init = messages.find((m) => m.method === 'initialize');
  if (init && caller)
    options.capabilities.remember(callerKey, (init.params as { capabilities?: unknown } | undefined)?.capabilities);
  const elicits =
    caller !== null &&
    options.capabilities.get(callerKey).elicitation &&
    messages.some((m) => m.method === 'tools/call');
  const server = buildServer({ ...options, logger: ctx.log }, caller, ex.requestId, ex.signal);
  // JSON answers unless a tool may ask the user something on the way (that needs the SSE stream).
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: !elicits,
  });
  try {
    await server.connect(options.serverRequests.wrap(transport, callerKey));
    const response = await transport.handleRequest(webRequestOf(ex, options.origin), { parsedBody: body });
    await sendWebResponse(ex, response);
  } finally {
    await server.close().catch((err: unknown) => ctx.log.warn('mcp server close failed', { err }));
  }
  return undefined;
}

/** What `tools/list` says of a tool: its JSON Schema input and annotations. */
function listed(tool: McpTool) {
  const inputSchema = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as {
    type: 'object';
    [key: string]: unknown;
  };
  delete inputSchema.$schema;
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema,
    annotations: { title: tool.title, ...tool.annotations },
  };
}

/**
 * A server with every tool of the endpoint, for one request of `caller`. The SDK's low-level
 * server, so a failing tool answers a JSON-RPC error carrying our code (McpServer would fold it
 * into an `isError` result and drop the code).
 */
function buildServer(
  options: McpEndpointOptions,
  caller: McpCaller | null,
  requestId: string,
  signal: AbortSignal,
): Server {
  const server = new Server(
    { name: options.name, version: options.version },
    { capabilities: { tools: {} }, instructions: options.instructions },
  );
  const tools = new Map(options.tools.map((tool) => [tool.name, tool]));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: options.tools.map(listed) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = tools.get(request.params.name);
    if (!tool)
      throw toRpcError(
        new ApiError('not_found', `Unknown tool ${request.params.name}; tools/list names them.`, { param: 'name' }),
        requestId,
      );
    const confirm = async (message: string): Promise<Confirmation> => {
      if (!caller || !options.capabilities.get(caller.key).elicitation) return null;
      try {
        const answer = await extra.sendRequest(
          {
            method: 'elicitation/create',
            params: { mode: 'form', message, requestedSchema: { type: 'object', properties: {} } },
          },
          ElicitResultSchema,
          { timeout: options.elicitTimeoutMs },
        );
        return answer.action === 'accept' ? 'accept' : answer.action === 'decline' ? 'decline' : null;
      } catch (err) {
        // No answer in time or the client cannot answer: the two-call approval still works.
        options.logger.debug('elicitation not answered', { request_id: requestId, err: ensureError(err).message });
        return null;
      }
    };
    const context: ToolContext = { caller, requestId, signal, confirm };
    try {
      const args = parseOrThrow(tool.input, request.params.arguments ?? {}, 'body');
      const result = await tool.run(args, context);
      return {
        content: [
          { type: 'text' as const, text: result.summary },
          { type: 'text' as const, text: JSON.stringify(result.structured) },
        ],
        structuredContent: result.structured,
      };
    } catch (err) {
      if (!(err instanceof ApiError))
        options.logger.error('mcp tool failed', { request_id: requestId, tool: tool.name, err: ensureError(err) });
      throw toRpcError(err, requestId);
    }
  });
  return server;
}
