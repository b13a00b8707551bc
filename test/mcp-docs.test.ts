import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from './harness.js';

const test = suite('mcp docs: the official client lists and calls every read-only tool on /mcp/docs');
let server: TestServer;
let client: Client;

const call = async (name: string, args: Record<string, unknown> = {}) => {
  const result = await client.callTool({ name, arguments: args });
  assert.not.ok(result.isError, `${name} answered an error: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Record<string, any>;
};

test.before(async () => {
  server = await startServer();
  client = new Client({ name: 'docs-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/docs`)));
});

test.after(async () => {
  await client.close();
  await server.close();
});

test('tools/list names every docs tool, each annotated read-only and with an input schema', async () => {
  const { tools } = await client.listTools();
  assert.equal(tools.map((t) => t.name).sort(), [
    'fetch_doc',
    'get_api_contract',
    'get_benchmark_methodology',
    'get_changelog',
    'search_docs',
  ]);
  for (const tool of tools) {
    assert.is(tool.annotations?.readOnlyHint, true, tool.name);
    assert.is(tool.annotations?.destructiveHint, false, tool.name);
    assert.is(tool.inputSchema.type, 'object');
  }
});

test('search_docs ranks sections and gives snippets with the words searched', async () => {
  const found = await call('search_docs', { query: 'idempotency key', limit: 3 });
  assert.ok(found.data.length > 0 && found.data.length <= 3);
  for (let i = 1; i < found.data.length; i++)
    assert.ok(found.data[i - 1].score >= found.data[i].score, 'ranked best first');
  assert.match(found.data[0].snippet.toLowerCase(), /idempotency/);
  assert.match(found.data[0].path, /\.md$/);
});

test('fetch_doc returns a page in slices and names the pages when the path is unknown', async () => {
  const page = await call('fetch_doc', { path: 'mcp', max_chars: 500 });
  assert.is(page.path, 'docs/mcp.md');
  assert.is(page.text.length, 500);
  assert.is(page.next_offset, 500);
  const missing = await client
    .callTool({ name: 'fetch_doc', arguments: { path: 'no-such-page' } })
    .catch((err: unknown) => err);
  assert.instance(missing, McpError);
  assert.is((missing as McpError).code, -32004);
  assert.is(((missing as McpError).data as { code: string }).code, 'not_found');
});

test('get_api_contract gives the index, one operation with its schemas, and the whole document', async () => {
  const index = await call('get_api_contract');
  assert.ok(
    index.operations.some(
      (op: { method: string; path: string }) => op.method === 'POST' && op.path === '/v1/chat/completions',
    ),
  );
  const one = await call('get_api_contract', { operation: 'GET /v1/benchmarks/live-per-domain/:bench_id' });
  assert.is(one.path, '/v1/benchmarks/live-per-domain/{bench_id}');
  assert.ok(one.operation.responses['200']);
  const full = await call('get_api_contract', { full: true });
  assert.is(full.openapi, '3.1.0');
});

test('get_changelog and get_benchmark_methodology read the published pages', async () => {
  const log = await call('get_changelog', { limit: 2 });
  assert.ok(log.data.length >= 1);
  const method = await call('get_benchmark_methodology');
  assert.ok(method.sections.length >= 2);
  assert.ok(
    method.sections.some((s: { text: string }) => /Ed25519/.test(s.text)),
    'the publication method is part of it',
  );
});

test('bad arguments are a JSON-RPC invalid-params error, and nothing needs a token', async () => {
  const err = await client.callTool({ name: 'search_docs', arguments: { query: '' } }).catch((e: unknown) => e);
  assert.instance(err, McpError);
  assert.is((err as McpError).code, -32602);
});

test.run();
