import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import * as assert from 'uvu/assert';

/** What a test client answers when a tool asks the user to confirm (null: the client declares no elicitation). */
export type ElicitAnswer = 'accept' | 'decline' | null;

/** The official MCP client connected to `url` with a bearer token, optionally answering elicitations. */
export async function mcpClient(
  url: string,
  token: string | null,
  options: { elicit?: ElicitAnswer; onElicit?: (message: string) => void } = {},
): Promise<Client> {
  const elicit = options.elicit ?? null;
  const client = new Client(
    { name: 'svc-test', version: '1.0.0' },
    { capabilities: elicit ? { elicitation: { form: {} } } : {} },
  );
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      options.onElicit?.((request.params as { message: string }).message);
      return { action: elicit };
    });
  }
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** Calls a tool and returns its structured content; fails the test on an error result. */
export async function callOk(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Record<string, any>> {
  const result = await client.callTool({ name, arguments: args });
  assert.not.ok(result.isError, `${name} answered an error: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Record<string, any>;
}

/** Calls a tool expecting a JSON-RPC error; returns it. */
export async function callFails(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<McpError & { data: { code: string; status: number } }> {
  const err = await client.callTool({ name, arguments: args }).then(
    (result) => assert.unreachable(`${name} succeeded: ${JSON.stringify(result.structuredContent)}`),
    (e: unknown) => e,
  );
  assert.instance(err, McpError);
  return err as McpError & { data: { code: string; status: number } };
}
