import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN_KEY, startServer, type TestAccount, type TestServer } from './harness.js';

const test = suite(
  'early access: the marketplace refuses everyone without a grant (403 early_access_required), through the official MCP client',
);
let server: TestServer;

/** The official MCP client on /mcp with `account`'s API token. */
async function connect(account: TestAccount): Promise<Client> {
  const client = new Client({ name: 'early-access-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${account.token}` } },
    }),
  );
  return client;
}

/** The refusal a tool call ends in: the JSON-RPC error's data (our status and code), or null when it succeeded. */
async function refusal(client: Client, name: string): Promise<{ status: number; code: string } | null> {
  try {
    const result = await client.callTool({ name, arguments: {} });
    assert.not.ok(result.isError, `${name} answered an error result: ${JSON.stringify(result.content)}`);
    return null;
  } catch (err) {
    assert.instance(err, McpError);
    const data = (err as McpError).data as { status: number; code: string };
    return { status: data.status, code: data.code };
  }
}

test.before(async () => {
  server = await startServer();
});
test.after(() => server.close());

test('without a grant the marketplace tools are 403 early_access_required; the grant opens them for that account only; revoking closes them again', async () => {
  const member = await server.account(1);
  const stranger = await server.account(1);
  const clients = [await connect(member), await connect(stranger)];
  const [memberClient, strangerClient] = clients as [Client, Client];
  try {
    for (const client of clients) {
      assert.equal(await refusal(client, 'list_listings'), { status: 403, code: 'early_access_required' });
      assert.equal(await refusal(client, 'list_orders'), { status: 403, code: 'early_access_required' });
    }
    // What is not a work-in-progress product stays open.
    assert.is(await refusal(strangerClient, 'list_models'), null);

    const granted = await server.request('POST', `/admin/v1/accounts/${member.id}/early-access`, {
      token: ADMIN_KEY,
      body: { product: 'marketplace' },
    });
    assert.is(granted.status, 200);
    assert.is(await refusal(memberClient, 'list_listings'), null);
    assert.equal(await refusal(strangerClient, 'list_listings'), { status: 403, code: 'early_access_required' });

    await server.request('DELETE', `/admin/v1/accounts/${member.id}/early-access/marketplace`, { token: ADMIN_KEY });
    assert.equal(await refusal(memberClient, 'list_listings'), { status: 403, code: 'early_access_required' });
  } finally {
    for (const client of clients) await client.close();
  }
});

test.run();
