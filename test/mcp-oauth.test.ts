import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN_KEY, startServer, tempDataDir, type TestAccount, type TestServer } from './harness.js';
import { callOk, mcpClient } from './mcp-client.js';
import { startIssuer, type TestIssuer } from './oidc-issuer.js';

const test = suite(
  'mcp oauth: access tokens from a real OIDC provider, verified with jose; refusals; RFC 9728 metadata',
);
let issuer: TestIssuer;
let server: TestServer;
let account: TestAccount;
let audience: string;

/** POSTs one JSON-RPC message to /mcp with `token`, as a client would. */
const rpc = (token: string | null, message: Record<string, unknown>) =>
  fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token && { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...message }),
  });
const listTools = (token: string | null) => rpc(token, { method: 'tools/list' });
const now = () => Math.floor(Date.now() / 1000);

test.before(async () => {
  // The audience is the /mcp URL; the server's port is not known before it starts, so name it by host.
  audience = 'https://svc.test/mcp';
  issuer = await startIssuer(audience);
  server = await startServer({
    SVC_DATA_DIR: tempDataDir(),
    SVC_OIDC_ISSUER: issuer.issuer,
    SVC_OIDC_AUDIENCE: audience,
    SVC_OIDC_ACCOUNT_CLAIM: 'svc_account',
  });
  account = await server.account(100);
  await server.request('POST', `/admin/v1/accounts/${account.id}/early-access`, {
    token: ADMIN_KEY,
    body: { product: 'marketplace' },
  });
  await server.app.deps.mcp.access.checkNow();
});

test.after(async () => {
  await server.close();
  await issuer.close();
});

test('the live issuer check passes; status says so without secrets; the RFC 9728 metadata is published', async () => {
  const status = await server.request('GET', '/mcp/oauth/status');
  assert.is(status.status, 200);
  assert.is(status.body.configured, true);
  assert.is(status.body.issuer_reachable, true);
  assert.is(status.body.last_check.ok, true, JSON.stringify(status.body.last_check));
  assert.ok(status.body.last_check.checks.some((c: { name: string }) => c.name === 'jwks'));
  assert.not.match(JSON.stringify(status.body), /secret|BEGIN|"d":/i);
  const metadata = await server.request('GET', '/.well-known/oauth-protected-resource');
  assert.is(metadata.status, 200);
  assert.equal(metadata.body.authorization_servers, [issuer.issuer]);
  assert.ok(metadata.body.scopes_supported.includes('orders:write'));
  assert.is(metadata.body.resource, `${server.url}/mcp`);
});

test('the official client with a provider-issued access token lists and calls every product tool', async () => {
  const token = await issuer.token({ account: account.id });
  const client: Client = await mcpClient(`${server.url}/mcp`, token);
  const { tools } = await client.listTools();
  assert.is(tools.length, 8);
  const listing = 'lst_SupportTriageTpl0001';
  assert.is(
    (await callOk(client, 'invoke_pro1', { messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 })).object,
    'chat.completion',
  );
  assert.is((await callOk(client, 'list_models')).object, 'list');
  assert.ok((await callOk(client, 'estimate', {})).cost_usd);
  assert.ok((await callOk(client, 'list_listings')).data.length > 0);
  const ask = await callOk(client, 'place_order', { listing_id: listing });
  assert.is(ask.status, 'approval_required');
  const placed = await callOk(client, 'place_order', ask.pending_action.confirm_with.arguments);
  const acceptAsk = await callOk(client, 'accept_order', { order_id: placed.order.id });
  assert.is(
    (await callOk(client, 'accept_order', acceptAsk.pending_action.confirm_with.arguments)).order.status,
    'accepted',
  );
  const second = await callOk(
    client,
    'place_order',
    ask.pending_action.confirm_with.arguments.listing_id ? { listing_id: listing } : {},
  );
  const cancelAsk = await callOk(client, 'cancel_order', { order_id: second.order.id });
  assert.is(
    (await callOk(client, 'cancel_order', cancelAsk.pending_action.confirm_with.arguments)).order.status,
    'cancelled',
  );
  const orders = await callOk(client, 'list_orders', {});
  assert.ok(orders.data.length >= 2);
  await client.close();
});

test('a token without the tool scope is a 403 insufficient_scope challenge; its own scopes work', async () => {
  const token = await issuer.token({ account: account.id, scope: 'marketplace:read' });
  const before = server.app.deps.mcp.orders.list(account.id, { limit: 100 }).length;
  assert.is((await listTools(token)).status, 200);
  const allowed = await rpc(token, { method: 'tools/call', params: { name: 'list_listings', arguments: {} } });
  assert.is(allowed.status, 200);
  const denied = await rpc(token, {
    method: 'tools/call',
    params: { name: 'place_order', arguments: { listing_id: 'lst_SupportTriageTpl0001' } },
  });
  assert.is(denied.status, 403);
  assert.match(denied.headers.get('www-authenticate') ?? '', /error="insufficient_scope"/);
  assert.match(denied.headers.get('www-authenticate') ?? '', /scope="orders:write"/);
  assert.is(((await denied.json()) as { error: { code: string } }).error.code, 'insufficient_scope');
  assert.is(
    server.app.deps.mcp.orders.list(account.id, { limit: 100 }).length,
    before,
    'the refused call proposed nothing',
  );
});

test('wrong audience, wrong issuer, expired, bad signature and missing token are refused with 401 and WWW-Authenticate', async () => {
  const base = { svc_account: account.id, scope: 'pro1:invoke', client_id: 'svc-test-agent', iat: now() };
  const valid = await issuer.token({ account: account.id });
  const [header, payload, signature] = valid.split('.') as [string, string, string];
  const flipped = `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`;
  const cases: Record<string, string> = {
    'wrong audience (issued by the provider for another resource)': await issuer.token({
      account: account.id,
      resource: 'https://other.test/api',
    }),
    'wrong issuer': await issuer.forge({ ...base, iss: 'http://127.0.0.1:1/evil', aud: audience, exp: now() + 300 }),
    expired: await issuer.forge({ ...base, iss: issuer.issuer, aud: audience, iat: now() - 3600, exp: now() - 600 }),
    'bad signature': `${header}.${payload}.${flipped}`,
    'unknown account': await issuer.forge({
      ...base,
      svc_account: 'acc_nobody',
      iss: issuer.issuer,
      aud: audience,
      exp: now() + 300,
    }),
  };
  assert.is((await listTools(valid)).status, 200, 'the untouched token works');
  for (const [name, token] of Object.entries(cases)) {
    const res = await listTools(token);
    assert.is(res.status, 401, name);
    const challenge = res.headers.get('www-authenticate') ?? '';
    assert.match(challenge, /error="invalid_token"/, name);
    assert.match(challenge, /resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource"/, name);
    assert.is(((await res.json()) as { error: { code: string } }).error.code, 'invalid_access_token', name);
  }
  const missing = await listTools(null);
  assert.is(missing.status, 401);
  assert.match(missing.headers.get('www-authenticate') ?? '', /resource_metadata=/);
});

test('API tokens still work beside OAuth', async () => {
  assert.is((await listTools(account.token)).status, 200);
});

test('without a passing issuer check there is no metadata, and status says why', async () => {
  const dead = await startServer({ SVC_OIDC_ISSUER: 'http://127.0.0.1:9/', SVC_OIDC_AUDIENCE: audience });
  try {
    await dead.app.deps.mcp.access.checkNow();
    assert.is((await dead.request('GET', '/.well-known/oauth-protected-resource')).status, 404);
    const status = await dead.request('GET', '/mcp/oauth/status');
    assert.is(status.body.issuer_reachable, false);
    assert.is(status.body.last_check.ok, false);
    assert.is(status.body.metadata_published, false);
  } finally {
    await dead.close();
  }
  const off = await startServer();
  try {
    assert.is((await off.request('GET', '/.well-known/oauth-protected-resource')).status, 404);
    assert.is((await off.request('GET', '/mcp/oauth/status')).body.configured, false);
  } finally {
    await off.close();
  }
});

test.run();
